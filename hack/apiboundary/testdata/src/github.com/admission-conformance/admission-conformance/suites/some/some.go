package some

const Value = 2
