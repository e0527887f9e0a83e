/**
 * The command line that comes with the extension, for people who install only the .vsix:
 * - **Copy CLI Command** puts `node "<extension>/dist/cli.js"` on the clipboard (quoted for the platform) and says so;
 * - **Install CLI on PATH…** (Linux and macOS) writes a small `session-knowledge` launcher into `$XDG_BIN_HOME` or
 *   `~/.local/bin`, after a modal confirmation that names the file and what it runs (cliShim.ts: never over a file
 *   that is not ours). On activation an existing launcher of ours is pointed at this version's folder.
 */
import * as vscode from 'vscode';
import { cliPath } from './agentSetup';
import { cliCommandLine, onPath, refreshShim, shimDirectory, writeShim, CLI_NAME } from './cliShim';
import { testConfirmations } from '../knowledgeCommands';

const INSTALL = 'Install on PATH…';

/** Asks with a modal dialog (tests answer through `testConfirmations`, SK_TEST_HOOKS). */
async function consent(message: string, detail: string, yes: string): Promise<boolean> {
  if (testConfirmations.length > 0) return testConfirmations.shift()!;
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, yes)) === yes;
}

export function registerCliCommands(context: vscode.ExtensionContext, deps: { output: vscode.LogOutputChannel }): void {
  const { output } = deps;
  const cli = cliPath(context);
  const canInstall = process.platform !== 'win32';

  if (canInstall) {
    try {
      const refreshed = refreshShim(shimDirectory(), cli);
      if (refreshed?.outcome === 'written') output.info(`Pointed ${refreshed.file} at this version of the extension (${cli}).`);
    } catch (err) {
      output.warn(`Could not point the ${CLI_NAME} launcher at this version of the extension: ${(err as Error).message}`);
    }
  }

  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.copyCliCommand', async (): Promise<string> => {
      const line = cliCommandLine(cli);
      await vscode.env.clipboard.writeText(line);
      output.info(`Copied the command line of this extension's CLI: ${line}`);
      const message = `Copied to the clipboard: ${line}. Add a command after it, for example --version, scan, pin PATH or hook install claude-code. It needs Node.js 20 or later on PATH.`;
      void vscode.window.showInformationMessage(message, ...(canInstall ? [INSTALL] : [])).then((choice) => {
        if (choice === INSTALL) void vscode.commands.executeCommand('sessionKnowledge.installCliOnPath');
      });
      return line;
    }),
    vscode.commands.registerCommand('sessionKnowledge.installCliOnPath', async (): Promise<string | undefined> => {
      if (!canInstall) {
        void vscode.window.showInformationMessage(`On Windows, run the CLI as: ${cliCommandLine(cli)} (Copy CLI Command puts it on the clipboard).`);
        return undefined;
      }
      const dir = shimDirectory();
      const file = `${dir}/${CLI_NAME}`;
      const ok = await consent(
        `Install the ${CLI_NAME} command in ${dir}?`,
        `This writes one small script, ${file}, that runs: node "${cli}". Nothing else is changed; delete the file to undo. It needs Node.js 20 or later on PATH.`,
        'Install',
      );
      if (!ok) return undefined;
      let result;
      try {
        result = writeShim(dir, cli);
      } catch (err) {
        output.warn(`Install CLI on PATH: ${(err as Error).message}`);
        void vscode.window.showErrorMessage(`Could not write ${file}: ${(err as Error).message}`);
        return undefined;
      }
      if (result.outcome === 'refused') {
        output.warn(`Install CLI on PATH: ${file} was left as it is: ${result.why}.`);
        void vscode.window.showWarningMessage(`${file} already exists and ${result.why}; it was left as it is. Remove it yourself, or run the CLI as: ${cliCommandLine(cli)}`);
        return undefined;
      }
      output.info(`${result.outcome === 'written' ? 'Wrote' : 'Already up to date:'} ${file} (runs ${cli}).`);
      const reach = onPath(dir)
        ? `Run ${CLI_NAME} --version in a new terminal to check.`
        : `${dir} is not on your PATH: add it (for example export PATH="${dir}:$PATH" in your shell profile), or run ${file} directly.`;
      void vscode.window.showInformationMessage(`${result.outcome === 'written' ? 'Installed' : 'Already installed:'} ${file}. ${reach}`);
      return file;
    }),
  );
}
