/**
 * The scan every read goes through: the current rule set, cached by (content hash, rule-set version), so an
 * entry written before a rule existed, or edited on disk since, is judged now.
 */
import type { ScanFn } from '../delivery/knowledgeBlock';
import { ThreatScanner } from './threatScanner';

export const sharedScanner = new ThreatScanner();

export const defaultScan: ScanFn = (text, contentHash) => sharedScanner.scan(text, contentHash);
