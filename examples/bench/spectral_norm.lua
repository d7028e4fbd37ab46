-- Spectral norm: the twin of spectral_norm.cove.
local n = tonumber(arg and arg[1]) or 500

local function a(i, j)
  local ij = i + j
  return 1.0 / (ij * (ij + 1) / 2 + i + 1)
end

local function times(n, v, out)
  for i = 0, n - 1 do
    local sum = 0.0
    for j = 0, n - 1 do
      sum = sum + a(i, j) * v[j]
    end
    out[i] = sum
  end
end

local function times_transposed(n, v, out)
  for i = 0, n - 1 do
    local sum = 0.0
    for j = 0, n - 1 do
      sum = sum + a(j, i) * v[j]
    end
    out[i] = sum
  end
end

local function times_both(n, v, out, tmp)
  times(n, v, tmp)
  times_transposed(n, tmp, out)
end

local u, v, tmp = {}, {}, {}
for i = 0, n - 1 do
  u[i] = 1.0
  v[i] = 0.0
  tmp[i] = 0.0
end
for round = 1, 10 do
  times_both(n, u, v, tmp)
  times_both(n, v, u, tmp)
end
local vbv, vv = 0.0, 0.0
for i = 0, n - 1 do
  vbv = vbv + u[i] * v[i]
  vv = vv + v[i] * v[i]
end
local norm = math.sqrt(vbv / vv) * 1000000000.0
print(string.format("%d", norm - norm % 1))
