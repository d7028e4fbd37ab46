-- A hash map with integer keys: the twin of intmap.cove.
local n = tonumber(arg and arg[1]) or 500000

local counts = {}
local distinct = 0
local last = 42
for i = 1, n do
  last = (last * 3877 + 29573) % 139968
  local key = last * 7919
  local c = counts[key]
  if c == nil then
    distinct = distinct + 1
    c = 0
  end
  counts[key] = c + 1
end
local hits = 0
local sum = 0
for k = 0, n - 1 do
  local key = k * 7919
  if counts[key] ~= nil then
    hits = hits + 1
  end
  sum = sum + (counts[key] or 0) * (k % 7)
end
print(string.format("%d %d %d", distinct, hits, sum))
