// express@4 is installed under the alias "express4"; its API used here (json, urlencoded,
// static) has the same shape as express 5's, whose types are installed.
declare module 'express4' {
  import express from 'express';
  export default express;
}
