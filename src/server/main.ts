/** Entry of `dist/server.js`: a language server over the transport the client chose (IPC). */
import { ProposedFeatures, createConnection } from 'vscode-languageserver/node';
import { startServer } from './server';

startServer(createConnection(ProposedFeatures.all));
