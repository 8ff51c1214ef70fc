// pm2: one process per app, in fork mode (pm2's cluster mode is for node:http servers, not uWS).
// For every core, run cluster.js here instead of server.js.
module.exports = {
  apps: [
    {
      name: 'velox-app',
      script: 'dist/server.js',
      exec_mode: 'fork',
      instances: 1,
      env: { NODE_ENV: 'production', PORT: '3000' },
      // pm2 sends SIGINT, then SIGKILL after kill_timeout (1.6 s by default): give the drain its time.
      kill_timeout: 15_000,
    },
  ],
};
