-- An integer loop: the dispatch loop's floor.
local total = 0
local n = tonumber(arg and arg[1]) or 50000000
for i = 0, n - 1 do
  total = total + i % 7
end
print(total)
