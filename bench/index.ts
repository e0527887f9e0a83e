/** `npm run bench`: every benchmark, each printing its figures beside a baseline measured in the same run. */
import { runStoreBench } from './store';

async function main(): Promise<void> {
  console.log(`Session Knowledge benchmarks — node ${process.version}, ${new Date().toISOString()}`);
  await runStoreBench();
}

void main();
