-- Parsing text: the twin of exprparse.cove. A token is a number or a
-- one-character string; the parser is a table with methods.
local n = tonumber(arg and arg[1]) or 12000
local M = 1000003

local last = 42
local function rand(k)
  last = (last * 3877 + 29573) % 139968
  return math.floor(last * k / 139968)
end

local ops = { "+", "-", "*" }

local function generate(parts, depth)
  local r = rand(10)
  if depth == 0 or r < 3 then
    parts[#parts + 1] = tostring(rand(1000))
  elseif r < 4 then
    parts[#parts + 1] = "-"
    generate(parts, depth - 1)
  elseif r < 6 then
    parts[#parts + 1] = "("
    generate(parts, depth - 1)
    parts[#parts + 1] = ops[rand(3) + 1]
    generate(parts, depth - 1)
    parts[#parts + 1] = ")"
  else
    generate(parts, depth - 1)
    parts[#parts + 1] = " " .. ops[rand(3) + 1] .. " "
    generate(parts, depth - 1)
  end
end

local END = "$"

local function tokenize(s)
  local tokens = {}
  local i = 1
  local len = #s
  while i <= len do
    local c = s:byte(i)
    if c >= 48 and c <= 57 then
      local v = 0
      while i <= len and s:byte(i) >= 48 and s:byte(i) <= 57 do
        v = v * 10 + s:byte(i) - 48
        i = i + 1
      end
      tokens[#tokens + 1] = v
    else
      if c == 43 or c == 45 or c == 42 or c == 40 or c == 41 then
        tokens[#tokens + 1] = string.char(c)
      end
      i = i + 1
    end
  end
  tokens[#tokens + 1] = END
  return tokens
end

local Parser = {}
Parser.__index = Parser

function Parser:peek()
  return self.tokens[self.pos]
end

function Parser:expr()
  local v = self:term()
  while true do
    local t = self:peek()
    if t == "+" then
      self.pos = self.pos + 1
      v = (v + self:term()) % M
    elseif t == "-" then
      self.pos = self.pos + 1
      v = v - self:term()
      if v < 0 then v = v + M end
    else
      break
    end
  end
  return v
end

function Parser:term()
  local v = self:factor()
  while self:peek() == "*" do
    self.pos = self.pos + 1
    v = v * self:factor() % M
  end
  return v
end

function Parser:factor()
  local t = self:peek()
  self.pos = self.pos + 1
  if type(t) == "number" then
    return t
  elseif t == "-" then
    return (M - self:factor()) % M
  elseif t == "(" then
    local v = self:expr()
    self.pos = self.pos + 1 -- the ")"
    return v
  end
  error("unexpected token")
end

local bytes, token_count, checksum = 0, 0, 0
for i = 0, n - 1 do
  local parts = {}
  generate(parts, 10)
  local text = table.concat(parts)
  bytes = bytes + #text
  local tokens = tokenize(text)
  token_count = token_count + #tokens
  local p = setmetatable({ tokens = tokens, pos = 1 }, Parser)
  local v = p:expr()
  assert(p.pos == #tokens, "parsed to the end")
  checksum = (checksum * 31 + v + i) % M
end
print(bytes .. " " .. token_count .. " " .. checksum)
