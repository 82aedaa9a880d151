import { spawn } from 'node:child_process';

// The report of celcost (src/control-plane/go/celcost/main.go, which says how each figure is counted): the static
// CEL cost of a ValidatingAdmissionPolicy's or a MutatingAdmissionPolicy's expressions, estimated with
// kube-apiserver's own CEL libraries against the CRD the policy matches.

/** cel-go's cost units; `unbounded` when the estimator found no bound (the figure is then 2^64-1, rounded by JSON). */
export interface CelCostRange {
  min: number;
  max: number;
  unbounded?: boolean;
}

export interface CelCostExpression {
  /** Where the expression is, e.g. spec.validations[3].messageExpression. */
  field: string;
  role: 'variable' | 'validation' | 'messageExpression' | 'mutation';
  /** A variable's name; a mutation's patch type (JSONPatch or ApplyConfiguration). */
  name?: string;
  outputType?: string;
  /** What the expression's own program can cost: what PerCallLimit applies to. Absent when it could not be estimated. */
  cost?: CelCostRange;
  /** Every variable the expression reaches, directly or through other variables. */
  variables: string[];
  /** cost plus its variables' costs: what it is charged when it is the first to touch them. */
  costWithVariables?: CelCostRange;
  problems: string[];
}

export interface CelCostPolicyReport {
  kind?: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';
  name: string;
  checkedAgainst?: { group: string; version: string; kind: string; resource: string };
  expressions: CelCostExpression[];
  /** What kube-controller-manager's type checker would write to the policy's status.typeChecking. */
  typeCheckingWarnings: { fieldRef: string; warning: string }[];
  /** Each evaluation pass: its expressions plus each variable they reach, once. */
  passes?: { validations: CelCostRange; messageExpressions: CelCostRange };
  /**
   * What RuntimeCELCostBudget applies to: a validating policy's two passes together; a mutating policy's dearest
   * mutation with the variables it reaches (each mutation has a budget of its own).
   */
  total?: CelCostRange;
  largest?: { field: string; max: number };
  /** Every reason the policy fails the estimate; empty when it passes. */
  problems: string[];
  ok: boolean;
}

export interface CelCostReport {
  /** The module versions of k8s.io/apiserver and cel-go the estimator was built with. */
  estimator: Record<string, string>;
  limits: { perCallLimit: number; runtimeCELCostBudget: number };
  policies: CelCostPolicyReport[];
  ok: boolean;
}

/**
 * Runs celcost on manifests (the policies and the CRDs they match, in any order; other kinds are ignored) and
 * returns its report, whether the policies pass or not. Throws when celcost cannot read them or does not answer.
 */
export function estimatePolicyCosts(estimatorPath: string, manifests: readonly unknown[]): Promise<CelCostReport> {
  // JSON documents are YAML documents; `---` keeps them apart for celcost's YAML reader.
  const input = manifests.map((manifest) => `---\n${JSON.stringify(manifest)}\n`).join('');
  return new Promise((resolve, reject) => {
    const child = spawn(estimatorPath, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    child.on('error', reject);
    // celcost may exit before reading everything (unreadable input); its exit status then says why, not EPIPE.
    child.stdin.on('error', () => {});
    child.on('close', (code, signal) => {
      const text = Buffer.concat(stdout).toString('utf8');
      // 0: every policy passes; 1: a report with at least one that does not. Anything else: no report.
      if (code !== 0 && code !== 1) {
        reject(new Error(`${estimatorPath} failed (${signal ?? `exit ${code}`}): ${stderr.trim() || text.trim()}`));
        return;
      }
      try {
        resolve(JSON.parse(text) as CelCostReport);
      } catch (error) {
        reject(
          new Error(
            `${estimatorPath} exited ${code} without a JSON report: ${(error as Error).message}\n${stderr.trim()}`,
          ),
        );
      }
    });
    child.stdin.end(input);
  });
}
