/** Tiny benchmark helpers: median of repeated runs, and a table printer. Figures are ms unless stated. */
export interface Timing {
  p50: number;
  p95: number;
}

/** The value at quantile q (0–1) of numbers already sorted ascending. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Runs `fn` `runs` times (it gets the run index) and answers p50 and p95 of the wall times in ms. */
export async function timeRuns(runs: number, fn: (i: number) => Promise<unknown> | unknown): Promise<Timing> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

export async function median(runs: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  return (await timeRuns(runs, fn)).p50;
}

export function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}
