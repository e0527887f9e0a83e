/** `npm run bench`: every benchmark, each printing its figures beside a baseline measured in the same run. */
import { runStoreBench } from './store';
import { runDeliveryBench } from './delivery';
import { runFirstMessageBench } from './firstMessage';
import { runThreatBench } from './threat';
import { runThreatShapesBench } from './threatShapes';
import { defaultPeerSets, oursFlag, runThreatPeersBench } from './threatPeers';
import { runAtrCasesBench } from './atrCases';
import { runCliStartBench } from './cliStart';
import { runAgentHookBench } from './agentHook';
import { runMemoryBench } from './memory';
import { runDistillBench } from './distill';
import { runPanelBench } from './panel';
import { runActivationBench } from './activation';
import { runReliabilityBench } from './reliability';
import { runBundlesBench } from './bundles';
import { runMultiRootBench } from './multiRoot';

async function main(): Promise<void> {
  console.log(`Session Knowledge benchmarks — node ${process.version}, ${new Date().toISOString()}`);
  console.log('Machines here are noisy: read the ratios against the same-run baselines, not the absolute times.');
  await runStoreBench();
  await runMultiRootBench();
  await runDeliveryBench();
  await runFirstMessageBench();
  await runThreatBench();
  await runThreatShapesBench();
  await runThreatPeersBench(defaultPeerSets(), oursFlag);
  await runAtrCasesBench(oursFlag);
  await runCliStartBench();
  await runAgentHookBench();
  await runMemoryBench();
  await runDistillBench();
  await runPanelBench();
  await runActivationBench();
  await runReliabilityBench();
  await runBundlesBench();
}

void main();
