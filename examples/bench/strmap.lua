-- A map with string keys: the twin of strmap.cove. A Lua table has no
-- count of its string keys, so the program keeps one, as Lua programs do.
local n = tonumber(arg and arg[1]) or 150000

local m = {}
local size = 0
for i = 0, n - 1 do
  local key = "k" .. i
  if m[key] == nil then size = size + 1 end
  m[key] = i
end
local filled = size
for j = 0, 2 * n - 1 do
  local key = "k" .. (j * 7 % (n + math.floor(n / 4)))
  local old = m[key]
  if old == nil then
    size = size + 1
    old = 0
  end
  m[key] = old + j % 13
end
local updated = size
local hits, found = 0, 0
for j = 0, n - 1 do
  local v = m["k" .. (j * 3)]
  if v ~= nil then
    hits = hits + 1
    found = (found + v) % 1000000007
  end
  if m["x" .. j] ~= nil then
    hits = hits + 1000000
  end
end
local removed = 0
for i = 0, n - 1 do
  if i % 3 == 0 then
    local key = "k" .. i
    local v = m[key]
    if v ~= nil then
      m[key] = nil
      size = size - 1
      removed = removed + v % 10
    end
  end
end
local still = 0
for i = 0, n - 1 do
  if m["k" .. i] ~= nil then still = still + 1 end
end
local walked, key_bytes = 0, 0
for k, v in pairs(m) do
  walked = (walked + v) % 1000000007
  key_bytes = key_bytes + #k
end
print(filled .. " " .. updated .. " " .. size .. " " .. hits .. " " .. found .. " " .. removed .. " " .. still .. " " .. walked .. " " .. key_bytes)
