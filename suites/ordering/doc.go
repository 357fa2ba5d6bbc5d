// Package ordering checks where admission runs in a request and in which
// order: mutators before validators (seed 000), the chain and Handles (seeds
// 001 and 003), and order across configurations (seed 002). One file per
// behaviour; each declares its spec metadata next to its cases.
package ordering
