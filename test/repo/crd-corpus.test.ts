import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SourcesFile } from '../fixtures/crd-corpus/corpus-format.ts';
import { CORPUS_FILE, readCorpus, readCorpusFile } from '../fixtures/crd-corpus/corpus.ts';

// The corpus of real CRDs (test/fixtures/crd-corpus/README.md): what build-corpus.ts wrote must be what sources.json
// pins, and big enough to measure against.
const sources = JSON.parse(
  readFileSync(new URL('../fixtures/crd-corpus/sources.json', import.meta.url), 'utf8'),
) as SourcesFile;
const stored = readCorpusFile();
const corpus = readCorpus();
const fortyHex = /^[0-9a-f]{40}$/;

describe('the CRD corpus', () => {
  it('holds every pinned source at its commit, and nothing else', () => {
    for (const source of sources.sources) expect(source.commit, source.repository).toMatch(fortyHex);
    const pinned = sources.sources.map((s) => `${s.repository}@${s.commit}`).sort();
    const built = corpus.sources.map((s) => `${s.repository}@${s.commit}`).sort();
    expect(built).toEqual(pinned);
    for (const source of corpus.sources) {
      expect(source.crdFiles.length, source.repository).toBeGreaterThan(0);
      const crds = corpus.crds.filter((crd) => crd.repository === source.repository);
      expect(new Set(crds.map((crd) => crd.path)), source.repository).toEqual(new Set(source.crdFiles));
      const sampleFiles = stored.sampleFiles.filter((file) => file.repository === source.repository);
      expect(sampleFiles.map((file) => file.path).sort(), source.repository).toEqual([...source.sampleFiles].sort());
    }
  });

  it('holds every pinned release series at its commits', () => {
    const pinned = sources.releaseSeries.map((series) => ({
      repository: series.repository,
      kind: series.kind,
      releases: series.releases.map((release) => ({ tag: release.tag, commit: release.commit, path: release.crd })),
    }));
    for (const series of pinned)
      for (const release of series.releases) expect(release.commit, `${series.kind} ${release.tag}`).toMatch(fortyHex);
    const built = corpus.releaseSeries.map((series) => ({
      repository: series.repository,
      kind: series.kind,
      releases: series.releases.map((release) => ({ tag: release.tag, commit: release.commit, path: release.path })),
    }));
    const order = (a: { repository: string; kind: string }, b: { repository: string; kind: string }) =>
      `${a.repository}/${a.kind}`.localeCompare(`${b.repository}/${b.kind}`);
    expect(built.sort(order)).toEqual(pinned.sort(order));
  });

  it('gives each CRD as parsed, named as its entry, with samples of its own kind only', () => {
    for (const entry of corpus.crds) {
      expect(entry.crd.kind, entry.id).toBe('CustomResourceDefinition');
      expect((entry.crd.metadata as { name?: unknown }).name, entry.id).toBe(entry.id);
      const spec = entry.crd.spec as { group: string; names: { kind: string } };
      expect([spec.group, spec.names.kind], entry.id).toEqual([entry.group, entry.kind]);
      expect(entry.text, entry.id).toMatch(/kind:\s*CustomResourceDefinition/);
      for (const sample of entry.samples)
        for (const document of sample.documents) {
          expect(document.kind, `${entry.id} ${sample.path}`).toBe(entry.kind);
          expect(String(document.apiVersion).split('/')[0], `${entry.id} ${sample.path}`).toBe(entry.group);
        }
    }
    for (const series of corpus.releaseSeries)
      for (const release of series.releases) {
        const spec = release.crd.spec as { group: string; names: { kind: string } };
        expect([spec.group, spec.names.kind], `${series.kind} ${release.tag}`).toEqual([series.group, series.kind]);
      }
  });

  it('is gzip with mtime 0, so that a rebuild from the same pins gives the same bytes', () => {
    const header = readFileSync(CORPUS_FILE).subarray(0, 8);
    expect([...header.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(header.readUInt32LE(4)).toBe(0);
  });

  it('holds its floors: 60 CRDs of 25 projects in 8 fields, 10 series of 4 releases', () => {
    const projects = new Set(corpus.crds.map((crd) => crd.project));
    const fields = new Set(corpus.crds.map((crd) => crd.field));
    const sampleDocuments = corpus.crds.reduce(
      (sum, crd) => sum + crd.samples.reduce((n, sample) => n + sample.documents.length, 0),
      0,
    );
    const longSeries = corpus.releaseSeries.filter((series) => series.releases.length >= 4);
    console.log(
      `CRD corpus: ${corpus.crds.length} CRDs of ${projects.size} projects in ${fields.size} fields ` +
        `(${[...fields].sort().join(', ')}); ${corpus.crds.filter((crd) => crd.samples.length > 0).length} CRDs ` +
        `with samples, ${sampleDocuments} sample documents in ${stored.sampleFiles.length} files; ` +
        `${longSeries.length} release series of 4 releases or more (${corpus.releaseSeries
          .map((series) => `${series.kind} ${series.releases.length}`)
          .join(', ')})`,
    );
    expect(corpus.crds.length).toBeGreaterThanOrEqual(60);
    expect(projects.size).toBeGreaterThanOrEqual(25);
    expect(fields.size).toBeGreaterThanOrEqual(8);
    expect(new Set(longSeries.map((series) => series.project)).size).toBeGreaterThanOrEqual(10);
    expect(corpus.crds.some((crd) => crd.kind === 'postgresql' && crd.samples.length > 0)).toBe(true);
  });
});
