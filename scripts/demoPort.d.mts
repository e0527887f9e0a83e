// Types for scripts/demoPort.mjs (imported by test/unit/demoPort.test.ts).
export declare const DEMO_PORT_BASE: number;
export declare const DEMO_PORT_SPAN: number;
export declare function clonePort(path: string): number;
export declare function demoPort(path: string): Promise<{ port: number; stable: true } | { port: number; stable: false; taken: number }>;
