package secret

const Value = 1
