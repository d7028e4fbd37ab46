-- Edit distance: the twin of levenshtein.cove (rows indexed from 0, as the
-- Cove program's are).
local n = tonumber(arg and arg[1]) or 2000
local function word(seed, n, step)
  local w, last = {}, seed
  for i = 1, n do
    last = (last * 3877 + 29573) % 139968
    w[i] = 97 + math.floor(last / step) % 4
  end
  return w
end
local function distance(a, b)
  local prev, cur = {}, {}
  for j = 0, #b do prev[j] = j; cur[j] = 0 end
  for i = 1, #a do
    cur[0] = i
    for j = 1, #b do
      local cost = 1
      if a[i] == b[j] then cost = 0 end
      local best = prev[j] + 1
      local ins = cur[j - 1] + 1
      if ins < best then best = ins end
      local sub = prev[j - 1] + cost
      if sub < best then best = sub end
      cur[j] = best
    end
    prev, cur = cur, prev
  end
  return prev[#b]
end
print(distance(word(1, n, 1), word(7, n, 3)))
