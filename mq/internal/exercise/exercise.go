package exercise

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Prefix starts every Error's text, so a test or a script finds a blanked function's message in
// any log, response remark or panic: "not implemented: see tutorial/ch03-store.md §… — write …".
const Prefix = "not implemented: see "

// Error is what a blanked function of the exercise mode returns, or panics with when it returns
// no error.
type Error struct {
	// Chapter is the chapter word, "ch03": the stub is built under the tag "ex_" + Chapter.
	Chapter string
	// Where is the tutorial section to read: "tutorial/ch03-store.md §…".
	Where string
	// What says what the reader writes there.
	What string
}

// Error reads "not implemented: see <Where> — <What> (exercise mode ex_<Chapter>)".
func (e *Error) Error() string {
	return fmt.Sprintf("%s%s — %s (exercise mode ex_%s)", Prefix, e.Where, e.What, e.Chapter)
}

// NotImplemented returns the Error of a blanked function: chapter "ch03", where "tutorial/ch03-store.md
// §…", what "write …". The first time a message is made it is also written to Announce, once:
// many callers only log an error (a registration loop, the reput service) and the loggers of
// tests are silent, yet the reader must see what to write whatever the failure looks like.
func NotImplemented(chapter, where, what string) *Error {
	e := &Error{Chapter: chapter, Where: where, What: what}
	if _, seen := announced.LoadOrStore(*e, true); !seen {
		fmt.Fprintln(Announce, "exercise:", e.Error())
	}
	return e
}

var (
	// Announce receives each message the first time it is made: os.Stderr, which `go test`
	// shows beside a failing test's output.
	Announce io.Writer = os.Stderr
	// announced holds the messages already written (Error values).
	announced sync.Map
)
