-- A bytecode interpreter: the twin of interp.cove. An instruction is a
-- table { op, arg } with the op a small integer, and the loop dispatches
-- on it by an if-chain in the order of the Cove program's match arms.
local n = tonumber(arg and arg[1]) or 200000

local PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, LT, JZ, JNZ, JMP, HALT =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12

local function new_machine()
  local m = { stack = {}, locals = {}, steps = 0 }
  for i = 0, 63 do m.stack[i] = 0 end
  for i = 0, 7 do m.locals[i] = 0 end
  return m
end

local function run(self, code)
  local stack = self.stack
  local locals = self.locals
  for i = 0, 7 do locals[i] = 0 end
  local sp = 0
  local pc = 0
  local steps = 0
  while true do
    local ins = code[pc]
    pc = pc + 1
    steps = steps + 1
    local op = ins[1]
    if op == PUSH then
      stack[sp] = ins[2]
      sp = sp + 1
    elseif op == LOAD then
      stack[sp] = locals[ins[2]]
      sp = sp + 1
    elseif op == STORE then
      sp = sp - 1
      locals[ins[2]] = stack[sp]
    elseif op == ADD then
      sp = sp - 1
      stack[sp - 1] = stack[sp - 1] + stack[sp]
    elseif op == SUB then
      sp = sp - 1
      stack[sp - 1] = stack[sp - 1] - stack[sp]
    elseif op == MUL then
      sp = sp - 1
      stack[sp - 1] = stack[sp - 1] * stack[sp]
    elseif op == MOD then
      sp = sp - 1
      stack[sp - 1] = stack[sp - 1] % stack[sp] -- operands are never negative here
    elseif op == LT then
      sp = sp - 1
      stack[sp - 1] = (stack[sp - 1] < stack[sp]) and 1 or 0
    elseif op == JZ then
      sp = sp - 1
      if stack[sp] == 0 then pc = ins[2] end
    elseif op == JNZ then
      sp = sp - 1
      if stack[sp] ~= 0 then pc = ins[2] end
    elseif op == JMP then
      pc = ins[2]
    elseif op == HALT then
      break
    end
  end
  self.steps = self.steps + steps
  return stack[sp - 1]
end

-- a program as a 0-indexed table, like the Cove list
local function program(list)
  local code = {}
  for i, ins in ipairs(list) do code[i - 1] = ins end
  return code
end

local function sum_program(n)
  return program {
    { PUSH, 0 }, { STORE, 0 }, { PUSH, 0 }, { STORE, 1 },
    { LOAD, 0 }, { PUSH, n }, { LT }, { JZ, 21 },
    { LOAD, 1 }, { LOAD, 0 }, { LOAD, 0 }, { MUL }, { PUSH, 7 }, { MOD }, { ADD }, { STORE, 1 },
    { LOAD, 0 }, { PUSH, 1 }, { ADD }, { STORE, 0 }, { JMP, 4 },
    { LOAD, 1 }, { HALT },
  }
end

local function primes_program(m)
  return program {
    { PUSH, 2 }, { STORE, 0 },
    { LOAD, 0 }, { PUSH, m }, { LT }, { JZ, 32 },
    { PUSH, 2 }, { STORE, 1 },
    { LOAD, 0 }, { LOAD, 1 }, { LOAD, 1 }, { MUL }, { LT }, { JNZ, 23 },
    { LOAD, 0 }, { LOAD, 1 }, { MOD }, { JZ, 27 },
    { LOAD, 1 }, { PUSH, 1 }, { ADD }, { STORE, 1 }, { JMP, 8 },
    { LOAD, 2 }, { PUSH, 1 }, { ADD }, { STORE, 2 },
    { LOAD, 0 }, { PUSH, 1 }, { ADD }, { STORE, 0 }, { JMP, 2 },
    { LOAD, 2 }, { HALT },
  }
end

local function direct_sum(n)
  local sum = 0
  for i = 0, n - 1 do sum = sum + i * i % 7 end
  return sum
end

local function direct_primes(m)
  local count = 0
  for c = 2, m - 1 do
    local d = 2
    local prime = true
    while d * d <= c do
      if c % d == 0 then
        prime = false
        break
      end
      d = d + 1
    end
    if prime then count = count + 1 end
  end
  return count
end

local vm = new_machine()
local sum = run(vm, sum_program(n))
local primes = run(vm, primes_program(math.floor(n / 10)))
assert(sum == direct_sum(n), "sum program")
assert(primes == direct_primes(math.floor(n / 10)), "primes program")
print(sum .. " " .. primes .. " " .. vm.steps)
