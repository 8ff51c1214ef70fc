import { describe, expectTypeOf, it } from 'vitest';
import { type Cluster, type ClusterOptions, cluster, type WorkerInfo } from '../src/index.ts';

describe('cluster() types', () => {
  it('resolves to a Cluster whose workers are listed with id and pid', () => {
    expectTypeOf(cluster).returns.toEqualTypeOf<Promise<Cluster>>();
    expectTypeOf<Cluster['workers']>().toEqualTypeOf<WorkerInfo[]>();
    expectTypeOf<Cluster['close']>().toEqualTypeOf<() => Promise<void>>();
  });

  it('requires entry and port, and takes a path or a URL', () => {
    expectTypeOf<{ entry: string; port: number }>().toExtend<ClusterOptions>();
    expectTypeOf<{ entry: URL; port: number; workers: number; host: string }>().toExtend<ClusterOptions>();
    expectTypeOf<{ port: number }>().not.toExtend<ClusterOptions>();
    expectTypeOf<{ entry: string }>().not.toExtend<ClusterOptions>();
    expectTypeOf<{ entry: string; port: number; uncaught: 'restart' }>().not.toExtend<ClusterOptions>();
  });
});
