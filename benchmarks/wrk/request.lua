-- Request shape for scenarios that are not a plain GET without headers (e.g. `body`).
-- The runner passes the scenario's method, body, content type and extra headers through the
-- environment, so one script serves every such scenario. Only static fields are set (no
-- request() function), which keeps wrk on its pre-built request path.
--   BENCH_METHOD        method (default GET)
--   BENCH_BODY          a small body, inline
--   BENCH_BODY_FILE     a file whose bytes are the body (large bodies: the kernel limits one
--                       environment string to 128 KiB); wins over BENCH_BODY
--   BENCH_CONTENT_TYPE  Content-Type header
--   BENCH_HEADERS       further headers, one "Name: value" per line
-- wrk adds Content-Length for the body itself.
wrk.method = os.getenv("BENCH_METHOD") or "GET"

local body_file = os.getenv("BENCH_BODY_FILE")
local body = os.getenv("BENCH_BODY")
if body_file ~= nil and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.body = f:read("*a")
  f:close()
elseif body ~= nil and body ~= "" then
  wrk.body = body
end

local content_type = os.getenv("BENCH_CONTENT_TYPE")
if content_type ~= nil and content_type ~= "" then
  wrk.headers["Content-Type"] = content_type
end

local headers = os.getenv("BENCH_HEADERS")
if headers ~= nil then
  for line in headers:gmatch("[^\n]+") do
    local name, value = line:match("^([^:]+):%s*(.-)%s*$")
    if name ~= nil then
      wrk.headers[name] = value
    end
  end
end
