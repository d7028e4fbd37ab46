-- Maps walked in their insertion order: the twin of map_walk.cove. A Lua
-- table has no order, so each keeps a list of its keys beside it, as a
-- Lua program that needs one does.
local walks = tonumber(arg and arg[1]) or 400

local names, name_order = {}, {}
local spread, spread_order = {}, {}
for i = 0, 4999 do
  local name = "key" .. i
  names[name] = i * 3
  name_order[#name_order + 1] = name
  local k = i * 7919 % 100003
  spread[k] = i
  spread_order[#spread_order + 1] = k
end
local by_name, by_number = 0, 0
for _ = 1, walks do
  for _, name in ipairs(name_order) do
    by_name = (by_name + names[name] + #name) % 1000000007
  end
  for _, k in ipairs(spread_order) do
    by_number = (by_number + k * 3 + spread[k]) % 1000000007
  end
end
print(string.format("%d %d %d %d", by_name, by_number, #name_order, #spread_order))
