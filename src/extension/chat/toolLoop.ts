/**
 * The tool-calling loop of a send (as the chat-sample's tool participant runs it): send, stream the text, collect
 * the tool calls; when there are any, invoke each (`vscode.lm.invokeTool`, with the request's invocation token so
 * the Chat view shows it), append the calls as an Assistant message and their results as a User message, and send
 * again — until the model answers without tool calls, or `MAX_TOOL_ROUNDS` rounds (the last one offers no tools).
 * A tool the person referenced with `#` is forced first (`LanguageModelChatToolMode.Required`, that tool alone),
 * as the API asks of a participant. Only tools offered are invoked; a tool that fails answers the model with one
 * sentence. Tool results are data: ours (`knowledge_recall`, `knowledge_read`) come inside their envelope, built
 * from memory the server judged on the way out. Cancellation stops between and inside rounds.
 */
import * as vscode from 'vscode';

/** At most this many rounds of tool calls per message; the round after them offers no tools. */
export const MAX_TOOL_ROUNDS = 8;

/** Our own tools `@knowledge` offers while memory is on (`knowledge_context` is not needed: the block rides anyway). */
export const OWN_CHAT_TOOLS = ['knowledge_recall', 'knowledge_read'] as const;

export interface ToolPlan {
  /** Offered on every round but the last. */
  tools: vscode.LanguageModelChatTool[];
  /** `#`-referenced tools, each forced once, in order. */
  required: string[];
  toolInvocationToken: vscode.ChatParticipantToolToken | undefined;
  /** A line for the person (a tool call, a result). */
  onProgress: (line: string) => void;
}

/**
 * What `@knowledge` offers for this request: its own memory tools while memory is on, the tools the person
 * referenced with `#`, and the tools enabled for the request where the API has it (`request.tools`, a proposal in
 * VS Code 1.100: absent for this extension there). Only tools listed in `vscode.lm.tools` are offered.
 */
export function toolPlan(request: vscode.ChatRequest, memoryOn: boolean, onProgress: (line: string) => void): ToolPlan {
  const wanted = new Set<string>(memoryOn ? OWN_CHAT_TOOLS : []);
  for (const ref of request.toolReferences ?? []) wanted.add(ref.name);
  const enabled = (request as { tools?: unknown }).tools;
  if (enabled instanceof Map) for (const [name, on] of enabled as Map<unknown, unknown>) if (on === true && typeof name === 'string') wanted.add(name);
  const tools = vscode.lm.tools.filter((t) => wanted.has(t.name)).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const offered = new Set(tools.map((t) => t.name));
  const required = [...new Set((request.toolReferences ?? []).map((r) => r.name))].filter((n) => offered.has(n));
  return { tools, required, toolInvocationToken: request.toolInvocationToken, onProgress };
}

/** One sentence for a failed model request. */
export function modelErrorSentence(err: Error): string {
  if (err instanceof vscode.LanguageModelError) {
    const why: Record<string, string> = {
      NoPermissions: 'this extension may not use it (allow it under Manage Language Model Access)',
      Blocked: 'it blocked the request (a quota or rate limit)',
      NotFound: 'it is not available any more (pick another model)',
    };
    return `The language model could not answer (${err.code}): ${why[err.code] ?? err.message}.`;
  }
  return `The request failed: ${err.message}`;
}

const textOf = (content: readonly unknown[]) => content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

function short(value: unknown, max = 80): string {
  let s: string;
  try {
    s = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    s = String(value);
  }
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Invokes one call; its result, or a sentence saying why there is none. Never throws (a cancellation ends the loop). */
async function invoke(call: vscode.LanguageModelToolCallPart, plan: ToolPlan, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResultPart> {
  if (!plan.tools.some((t) => t.name === call.name)) {
    plan.onProgress(`The model asked for ${call.name}, which was not offered`);
    return new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(`The tool ${call.name} is not available in this chat.`)]);
  }
  plan.onProgress(`Calling ${call.name} ${short(call.input)}`);
  try {
    const result = await vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: plan.toolInvocationToken }, token);
    const text = textOf(result.content);
    plan.onProgress(`${call.name} answered (${text.length} characters)`);
    return new vscode.LanguageModelToolResultPart(call.callId, result.content);
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    plan.onProgress(`${call.name} failed: ${short(message)}`);
    return new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(`The tool ${call.name} failed: ${message}`)]);
  }
}

export interface RoundHandlers {
  /** The first part of the first answer arrived (text or a tool call): the model accepted the request. */
  accepted: () => void;
  text: (fragment: string) => void;
}

/**
 * Sends `messages` and runs the loop. `cancelled` resolves when `token` fires (a cancelled stream may never end).
 * Throws what the model's request throws.
 */
export async function runToolLoop(
  model: vscode.LanguageModelChat,
  messages: readonly vscode.LanguageModelChatMessage[],
  plan: ToolPlan | undefined,
  token: vscode.CancellationToken,
  cancelled: Promise<undefined>,
  on: RoundHandlers,
): Promise<void> {
  const conversation = [...messages];
  const required = [...(plan?.required ?? [])];
  for (let round = 0; ; round++) {
    const offer = plan && plan.tools.length > 0 && round < MAX_TOOL_ROUNDS;
    const forced = offer ? required.shift() : undefined;
    const options: vscode.LanguageModelChatRequestOptions = offer
      ? forced
        ? { tools: plan.tools.filter((t) => t.name === forced), toolMode: vscode.LanguageModelChatToolMode.Required }
        : { tools: plan.tools }
      : {};
    const response = await Promise.race([model.sendRequest(conversation, options, token), cancelled]);
    const parts = response?.stream[Symbol.asyncIterator]();
    const calls: vscode.LanguageModelToolCallPart[] = [];
    let text = '';
    for (;;) {
      const next = parts && (await Promise.race([parts.next(), cancelled]));
      if (!next || next.done || token.isCancellationRequested) break;
      on.accepted();
      const part = next.value;
      if (part instanceof vscode.LanguageModelTextPart) {
        text += part.value;
        on.text(part.value);
      } else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
    }
    if (token.isCancellationRequested || !plan || calls.length === 0) return;
    if (!offer) {
      if (round >= MAX_TOOL_ROUNDS) plan.onProgress(`Stopped after ${MAX_TOOL_ROUNDS} rounds of tool calls`);
      return;
    }
    conversation.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
    const results: vscode.LanguageModelToolResultPart[] = [];
    for (const call of calls) {
      if (token.isCancellationRequested) return;
      results.push(await invoke(call, plan, token));
    }
    if (token.isCancellationRequested) return;
    conversation.push(vscode.LanguageModelChatMessage.User(results));
  }
}
