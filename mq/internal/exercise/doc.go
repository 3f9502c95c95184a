// Package exercise is the exercise mode's one piece of runtime: the error a blanked function
// returns (or panics with) when the book is built with a chapter's tag, ex_ch01 … ex_ch10.
//
// In the exercise mode of chapter NN (`go test -tags ex_chNN ./chNN-name`), one to three
// functions of mq/ that the chapter traces are replaced by stubs: each chosen function lives in a
// file of its own guarded by `//go:build !ex_chNN`, and a twin whose name ends in "_stub"
// (register_broker_stub for register_broker), guarded by `//go:build ex_chNN`, holds the same
// signature and doc comment, a hint, and a body that returns NotImplemented (or panics with it,
// where the function returns no error). The normal build never compiles a stub;
// tutorial/exercises.md says how to work the exercises.
//
// The error says where to read and what to write, so the chapter's exercises fail with the hint
// instead of hanging: a stub on a path a request waits on answers the request (an error
// status, an error response) rather than leaving it waiting.
//
// RocketMQ has no counterpart: this is the book's, not the broker's.
//
// # Files
//
//	exercise.go  Error (chapter, where to read, what to write), NotImplemented (announces each
//	             message once on stderr)
package exercise
