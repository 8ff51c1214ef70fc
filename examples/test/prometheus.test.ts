/**
 * examples/prometheus: the app's request metrics, scraped by a real Prometheus server (Debian's
 * `prometheus`, installed by prometheus/ensure-prometheus.mjs before the tests) started here on
 * a free port, and read back through Prometheus's query API.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type Running, run, spawnProcess, tempDir, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('..', import.meta.url));
const PROMETHEUS = '/usr/bin/prometheus';

/** One instant query; the result's series as label sets with their value. */
async function query(base: string, promql: string): Promise<Array<{ metric: Record<string, string>; value: number }>> {
  const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  if (body.status !== 'success') throw new Error(`query ${promql} failed: ${JSON.stringify(body)}`);
  return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
}

async function stop(running: Running): Promise<void> {
  running.proc.kill('SIGTERM');
  await running.exited;
}

describe('examples/prometheus', () => {
  it('serves metrics that a real Prometheus scrapes and answers queries about', async () => {
    const app = run(new URL('../prometheus/main.ts', import.meta.url), { PORT: '0', HOST: '127.0.0.1' }, { cwd: EXAMPLES });
    const [, appPort] = await app.waitFor(/http:\/\/127\.0\.0\.1:(\d+)/, 60_000);
    const url = `http://127.0.0.1:${appPort}`;
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/users/${i}`)).status).toBe(200);
    expect((await fetch(`${url}/fail`)).status).toBe(500);
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);

    const own = await fetch(`${url}/metrics`);
    expect(own.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await own.text()).toContain('http_server_request_duration_count{');

    const dir = await tempDir('velox-prometheus-');
    const config = path.join(dir, 'prometheus.yml');
    await writeFile(
      config,
      ['global:', '  scrape_interval: 1s', 'scrape_configs:', '  - job_name: velox', '    static_configs:', `      - targets: ['127.0.0.1:${appPort}']`, ''].join('\n'),
    );
    const promPort = await freePort();
    const prometheus = spawnProcess(
      PROMETHEUS,
      [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'],
      { cwd: dir, env: {} },
    );
    const base = `http://127.0.0.1:${promPort}`;
    try {
      // The target is up once Prometheus scraped it.
      await until(async () => (await query(base, 'up{job="velox"}').catch(() => []))[0]?.value === 1, 'Prometheus scraped the app', 30_000);
      const routed = await query(base, 'http_server_request_duration_count{job="velox",http_route="/users/:id"}');
      expect(routed).toHaveLength(1);
      expect(routed[0]!.value).toBe(3);
      expect(routed[0]!.metric).toMatchObject({ http_request_method: 'GET', http_response_status_code: '200', url_scheme: 'http' });
      const failed = await query(base, 'http_server_request_duration_count{job="velox",http_route="/fail"}');
      expect(failed[0]!.metric).toMatchObject({ http_response_status_code: '500', error_type: 'Error' });
      const missing = await query(base, 'http_server_request_duration_count{job="velox",http_response_status_code="404"}');
      expect(missing[0]!.metric.http_route).toBeUndefined();
      // The histogram's buckets, as PromQL reads them: all three requests were under 10 s.
      const buckets = await query(base, 'sum(http_server_request_duration_bucket{job="velox",http_route="/users/:id",le="10"})');
      expect(buckets[0]!.value).toBe(3);
      // Scrapes of /metrics are not counted, and nothing is in progress.
      expect(await query(base, 'http_server_request_duration_count{job="velox",http_route="/metrics"}')).toEqual([]);
      const active = await query(base, 'sum(http_server_active_requests{job="velox"})');
      expect(active[0]!.value).toBe(0);
    } finally {
      await stop(prometheus);
      await stop(app);
    }
  }, 90_000);
});
