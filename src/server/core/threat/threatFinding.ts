/** The finding type every part of the judgement speaks (the scan loop, the closer policy, names, the verdict). Pure. */
import type { ThreatCategory, ThreatSeverity } from './rules';

/** One rule tripped by one span of a text. */
export interface ThreatFinding {
  /** Rule id, e.g. `override.ignore-instructions`. */
  readonly ruleId: string;
  readonly category: ThreatCategory;
  readonly severity: ThreatSeverity;
  /** One line for a person. */
  readonly message: string;
  /** Half-open UTF-16 span in the original text. */
  readonly start: number;
  readonly end: number;
  /** For hidden/encoded findings: rule ids the uncovered text tripped. */
  readonly inner?: readonly string[];
  /** For hidden/encoded findings: the start of the uncovered text (≤ 160 chars), for the person to read. */
  readonly uncovered?: string;
}
