import { describe, expect, it } from 'vitest';
import { choice, fromValues, scalar, templateText } from './template-slots.ts';

const configMap = (data: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x' },
  data,
});

describe('templateText', () => {
  it('writes `{{` of the data as the action that prints it, so helm renders the data as it was', () => {
    expect(templateText([configMap({ rule: 'self.a == "{{x}}"' })])).toContain('rule: self.a == "{{ "{{" }}x}}"');
  });

  it('puts a scalar where its slot stands, without the quotes a string would get', () => {
    expect(templateText([configMap({ replicas: scalar('.Values.replicas') })])).toContain(
      '  replicas: {{ .Values.replicas }}\n',
    );
  });

  it('writes a value from values under `with`, indented where its key stands', () => {
    const text = templateText([
      { ...configMap({}), spec: { template: { nodeSelector: fromValues('.Values.nodeSelector') } } },
    ]);
    expect(text).toContain(
      [
        '    {{- with .Values.nodeSelector }}',
        '    nodeSelector:',
        '      {{- toYaml . | nindent 6 }}',
        '    {{- end }}',
      ].join('\n'),
    );
  });

  it('writes a choice as if/else, leaves out a side that is undefined, and negates the condition when the first is', () => {
    expect(templateText([configMap({ a: choice('.Values.on', ['x'], undefined) })])).toContain(
      ['  {{- if .Values.on }}', '  a:', '    - x', '  {{- end }}'].join('\n'),
    );
    expect(templateText([configMap({ a: choice('.Values.on', undefined, 'y') })])).toContain(
      ['  {{- if not (.Values.on) }}', '  a: y', '  {{- end }}'].join('\n'),
    );
  });

  it('never makes a lines slot the first key of a list item, which would lose the dash', () => {
    const text = templateText([{ ...configMap({}), items: [{ aaa: fromValues('.Values.first'), name: 'n' }] }]);
    expect(text).toContain(['  - name: n', '    {{- with .Values.first }}', '    aaa:'].join('\n'));
  });
});
