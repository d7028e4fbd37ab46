-- Fasta: the twin of fasta.cove.
local n = tonumber(arg and arg[1]) or 250000

local last = 42
local function next_random()
  last = (last * 3877 + 29573) % 139968
  return last / 139968.0
end

local function hash_line(hash, line)
  for i = 1, #line do
    hash = (hash * 31 + line[i]) % 1000000007
  end
  return hash
end

local function repeat_fasta(source, n, hash, lines)
  local line = {}
  local at = 1
  for i = 1, n do
    line[#line + 1] = string.byte(source, at)
    at = at + 1
    if at > #source then
      at = 1
    end
    if #line == 60 then
      hash = hash_line(hash, line)
      lines[#lines + 1] = hash
      while #line > 0 do
        line[#line] = nil
      end
    end
  end
  return hash_line(hash, line)
end

local function random_fasta(codes, odds, n, hash, lines)
  local line = {}
  local last_code = #codes
  for i = 1, n do
    local r = next_random()
    local k = 1
    while k < last_code and odds[k] <= r do
      k = k + 1
    end
    line[#line + 1] = codes[k]
    if #line == 60 then
      hash = hash_line(hash, line)
      lines[#lines + 1] = hash
      while #line > 0 do
        line[#line] = nil
      end
    end
  end
  return hash_line(hash, line)
end

local function cumulative(probabilities)
  local out, sum = {}, 0.0
  for i = 1, #probabilities do
    sum = sum + probabilities[i]
    out[i] = sum
  end
  return out
end

local function codes_of(text)
  local out = {}
  for i = 1, #text do
    out[i] = string.byte(text, i)
  end
  return out
end

local alu = "GGCCGGGCGCGGTGGCTCACGCCTGTAATCCCAGCACTTTGGGAGGCCGAGGCGGGCGGATCACCTGAGGTCAGGAGTTCGAGACCAGCCTGGCCAACATGGTGAAACCCCGTCTCTACTAAAAATACAAAAATTAGCCGGGCGTGGTGGCGCGCGCCTGTAATCCCAGCTACTCGGGAGGCTGAGGCAGGAGAATCGCTTGAACCCGGGAGGCGGAGGTTGCAGTGAGCCGAGATCGCGCCACTGCACTCCAGCCTGGGCGACAGAGCGAGACTCCGTCTCAAAAA"
local iub_codes = codes_of("acgtBDHKMNRSVWY")
local iub = cumulative({0.27, 0.12, 0.12, 0.27, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02})
local sapiens_codes = codes_of("acgt")
local sapiens = cumulative({0.3029549426680, 0.1979883004921, 0.1975473066391, 0.3015094502008})
local lines = {}
local hash = repeat_fasta(alu, 2 * n, 0, lines)
hash = random_fasta(iub_codes, iub, 3 * n, hash, lines)
hash = random_fasta(sapiens_codes, sapiens, 5 * n, hash, lines)
print(hash)
print(#lines)
