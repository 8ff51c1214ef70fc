// Express 5 with multer (busboy 1.6 underneath): memory storage for the scenario, as its docs
// show it; disk storage for the 1 GB probe (memory storage would hold the whole file).
import { rm } from 'node:fs/promises';
import express from 'express';
import multer from 'multer';
import { serve } from '../../lib/server-kit.mjs';
import { MAX_FILE, PROBE, uploadDir } from './shared.mjs';

await serve({
  create: () => express(),
  scenarios: {
    upload(app) {
      const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_FILE } });
      app.post('/upload', upload.single('file'), (req, res) => {
        res.json({ file: req.file?.buffer.length ?? 0, fields: Object.keys(req.body).length });
      });
    },
    [PROBE](app) {
      const upload = multer({ dest: uploadDir('express'), limits: { fileSize: MAX_FILE } });
      app.post('/upload', upload.single('file'), async (req, res) => {
        const size = req.file?.size ?? 0;
        if (req.file) await rm(req.file.path);
        res.json({ file: size, fields: Object.keys(req.body).length });
      });
    },
  },
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      const server = app.listen(port, '127.0.0.1', (err) => {
        if (err) reject(err);
        else resolve(server.address().port);
      });
    }),
});
