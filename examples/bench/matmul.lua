-- Matrix multiplication over tables of tables: the twin of matmul.cove
-- (indexed from 1, as Lua's tables are fastest).
local n = tonumber(arg and arg[1]) or 200

local function truncate(x)
  if x < 0 then return -math.floor(-x) end
  return math.floor(x)
end

local function matgen(n, seed)
  local tmp = seed / n / n
  local a = {}
  for i = 1, n do
    local row = {}
    for j = 1, n do
      row[j] = tmp * (i - j) * (i + j - 2)
    end
    a[i] = row
  end
  return a
end

local function transpose(b, n)
  local t = {}
  for j = 1, n do
    local row = {}
    for i = 1, n do
      row[i] = b[i][j]
    end
    t[j] = row
  end
  return t
end

local function matmul(a, b, n)
  local bt = transpose(b, n)
  local c = {}
  for i = 1, n do
    local ai = a[i]
    local row = {}
    for j = 1, n do
      local bj = bt[j]
      local sum = 0.0
      for k = 1, n do
        sum = sum + ai[k] * bj[k]
      end
      row[j] = sum
    end
    c[i] = row
  end
  return c
end

local a = matgen(n, 1.0)
local b = matgen(n, 2.0)
local c = matmul(a, b, n)
local mid = math.floor(n / 2) + 1
print(string.format("%d", truncate(c[mid][mid] * 1000000.0)))
