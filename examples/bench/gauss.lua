-- Gaussian elimination over tables of tables: the twin of gauss.cove
-- (indexed from 0, as the Cove program is, so the operations match).
local n = tonumber(arg and arg[1]) or 160

local function system(n, seed)
  local a = {}
  for i = 0, n - 1 do
    local row = {}
    for j = 0, n do
      seed[1] = (seed[1] * 1309 + 13849) % 65536
      row[j] = seed[1] / 65536.0 + 0.5
    end
    a[i] = row
  end
  return a
end

local function eliminate(a, n)
  for k = 0, n - 1 do
    local p = k
    local best = math.abs(a[k][k])
    for i = k + 1, n - 1 do
      local v = math.abs(a[i][k])
      if v > best then
        best = v
        p = i
      end
    end
    a[k], a[p] = a[p], a[k]
    local pivot = a[k]
    for i = k + 1, n - 1 do
      local row = a[i]
      local f = row[k] / pivot[k]
      for j = k, n do
        row[j] = row[j] - f * pivot[j]
      end
    end
  end
end

local function substitute(a, n)
  local x = {}
  for i = 0, n - 1 do x[i] = 0.0 end
  for i = n - 1, 0, -1 do
    local row = a[i]
    local s = row[n]
    for j = i + 1, n - 1 do s = s - row[j] * x[j] end
    x[i] = s / row[i]
  end
  return x
end

local seed = { 74755 }
local total = 0.0
for _ = 1, 30 do
  local a = system(n, seed)
  eliminate(a, n)
  local x = substitute(a, n)
  for i = 0, n - 1 do total = total + x[i] end
end
print(string.format("%.6f", total))
