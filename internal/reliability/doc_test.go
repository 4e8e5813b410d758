// Package reliability_test is the reliability suite: each test reproduces
// a way a hostile input once cost more than its size, hung, or left
// something behind, through the library, the server and gather as callers
// use them, and shows it fixed. The command line's half (-o and signals,
// endless stdin) is in cmd/render; the stages' own tests go further.
package reliability_test
