const kubeVersion = /^v([1-9]\d*)(?:(alpha|beta)([1-9]\d*))?$/;
const stability = { alpha: 1, beta: 2, ga: 3 } as const;

/**
 * Orders version names from oldest to newest as kube-apiserver ranks them for discovery: a GA version above every
 * beta, a beta above every alpha, then by major and minor number (v1alpha1 < v1beta1 < v1beta2 < v1 < v2); a name of
 * no such form below them all, `foo10` below `foo1`. Negative when `a` is the older.
 */
export function compareVersionAge(a: string, b: string): number {
  const [ma, mb] = [kubeVersion.exec(a), kubeVersion.exec(b)];
  if (!ma || !mb) return ma ? 1 : mb ? -1 : a === b ? 0 : a < b ? 1 : -1;
  const rank = (match: RegExpExecArray) => [
    stability[(match[2] as 'alpha' | 'beta' | undefined) ?? 'ga'],
    Number(match[1]),
    Number(match[3] ?? 0),
  ];
  const [ra, rb] = [rank(ma), rank(mb)];
  const differing = ra.findIndex((value, i) => value !== rb[i]);
  return differing === -1 ? 0 : ra[differing]! - rb[differing]!;
}
