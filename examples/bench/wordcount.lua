-- Word counting: a map with string keys, hit a million times.
local counts = {}
local distinct = 0
local seed = 42
local n = tonumber(arg and arg[1]) or 1000000
for i = 0, n - 1 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  local word = "w" .. (seed % 5000)
  local n = counts[word]
  if n == nil then distinct = distinct + 1; n = 0 end
  counts[word] = n + 1
end
print(distinct)
print(counts["w7"] or 0)
