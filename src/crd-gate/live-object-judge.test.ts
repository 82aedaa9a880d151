import { describe, expect, it } from 'vitest';
import { pipeCrd } from './crd-gate.fixture.ts';
import { liveObjectJudge } from './live-object-judge.ts';

const pipes = Array.from({ length: 4 }, (_, i) => ({
  apiVersion: 'gate.example.com/v1',
  kind: 'Pipe',
  metadata: { name: `pipe-${i}`, namespace: 'west' },
  spec: { size: i, ...(i < 3 ? { colour: 'red' } : {}) },
}));

describe('liveObjectJudge', () => {
  const withoutColour = pipeCrd({ fields: { size: { type: 'integer' } } });

  it('counts each finding over the pages it is handed, with the first object as its example', () => {
    const judge = liveObjectJudge(pipeCrd(), withoutColour);
    if ('none' in judge) throw new Error(judge.none);
    judge.judge(pipes.slice(0, 2));
    judge.judge(pipes.slice(2));
    expect(judge.findings()).toContainEqual(
      expect.objectContaining({
        id: 'fieldDroppedOnRead',
        severity: 'error',
        count: 3,
        example: 'west/pipe-0 v1 spec.colour',
      }),
    );
  });

  it('follows the rule settings, as check --crd-rules does', () => {
    const judge = liveObjectJudge(pipeCrd(), withoutColour, { fieldDroppedOnRead: 'warning' });
    if ('none' in judge) throw new Error(judge.none);
    judge.judge(pipes);
    expect(judge.findings()).toContainEqual(
      expect.objectContaining({ id: 'fieldDroppedOnRead', severity: 'warning', count: 3 }),
    );
  });

  it('tells what the objects showed once all were listed: the fields an effect is about, for weighing the rules', () => {
    const judge = liveObjectJudge(pipeCrd(), withoutColour);
    if ('none' in judge) throw new Error(judge.none);
    judge.judge(pipes);
    expect(judge.evidence()).toMatchObject({
      objects: 4,
      complete: true,
      unplaced: false,
      affected: [expect.objectContaining({ path: 'spec.colour' })],
    });
    const uncoloured = liveObjectJudge(pipeCrd(), withoutColour);
    if ('none' in uncoloured) throw new Error(uncoloured.none);
    uncoloured.judge(pipes.slice(3));
    expect(uncoloured.evidence()).toMatchObject({ objects: 1, complete: true, affected: [] });
  });
});
