-- The 0/1 knapsack by dynamic programming: the twin of knapsack.cove.
local items = tonumber(arg and arg[1]) or 2000
local capacity = 5000
local seed = 7
local weights, values = {}, {}
for i = 0, items - 1 do
  seed = seed * 16807 % 2147483647
  weights[i] = seed % 100 + 1
  seed = seed * 16807 % 2147483647
  values[i] = seed % 1000
end
local best = {}
for c = 0, capacity do best[c] = 0 end
for i = 0, items - 1 do
  local wt, v = weights[i], values[i]
  local c = capacity
  while c >= wt do
    local with = best[c - wt] + v
    if with > best[c] then best[c] = with end
    c = c - 1
  end
end
print(best[capacity])
