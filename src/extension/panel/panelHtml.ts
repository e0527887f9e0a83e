/** The webview's HTML: a strict CSP with a fresh nonce per render; scripts and styles only from the extension. */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

/** Only the extension's media and dist folders may be loaded by the webview. */
export function panelResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'media'), vscode.Uri.joinPath(extensionUri, 'dist')];
}

export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce = newNonce()): string {
  const uri = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" id="vscode-codicon-stylesheet" href="${uri('dist', 'codicon.css')}">
<link rel="stylesheet" nonce="${nonce}" href="${uri('media', 'panel', 'panel.css')}">
<title>Sessions and Memory</title>
</head>
<body>
<main id="app" aria-busy="true"><p class="muted">Loading…</p></main>
<div id="live" class="visually-hidden" role="status" aria-live="polite"></div>
<script nonce="${nonce}" src="${uri('dist', 'panel.js')}"></script>
</body>
</html>`;
}
