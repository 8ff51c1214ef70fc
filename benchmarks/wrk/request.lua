-- Request shape for scenarios that are not a plain GET (e.g. `body`).
-- The runner passes the scenario's method, body and content type through the
-- environment, so one script serves every such scenario. Only static fields are
-- set (no request() function), which keeps wrk on its pre-built request path.
wrk.method = os.getenv("BENCH_METHOD") or "GET"

local body = os.getenv("BENCH_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
end

local content_type = os.getenv("BENCH_CONTENT_TYPE")
if content_type ~= nil and content_type ~= "" then
  wrk.headers["Content-Type"] = content_type
end
