-- String appends: the twin of append.cove, building the text in a table
-- joined once (Lua's `..` in a loop would copy the whole string each time).
local n = tonumber(arg and arg[1]) or 1000000
local pieces = {"a", "bc", "def", "g"}
local parts = {}
for i = 0, n - 1 do
  parts[#parts + 1] = pieces[i % 4 + 1]
end
local s = table.concat(parts)
local hash = 0
local at = 1
while at <= #s do
  hash = (hash * 31 + string.byte(s, at)) % 1000000007
  at = at + 1000
end
print(#s)
print(hash)
