package exercise

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The message names the section to read, what to write and the tag that blanked it, an Error
// wrapped by a caller is still one, and each message is announced once.
func TestNotImplementedSaysWhereAndWhat(t *testing.T) {
	var announced bytes.Buffer
	Announce = &announced
	t.Cleanup(func() { Announce = os.Stderr })
	err := NotImplemented("ch03", "tutorial/ch03-store.md §doAppend", "write the record")
	require.Equal(t, "not implemented: see tutorial/ch03-store.md §doAppend — write the record (exercise mode ex_ch03)", err.Error())
	var e *Error
	require.ErrorAs(t, fmt.Errorf("put: %w", err), &e, "a caller may wrap it")

	NotImplemented("ch03", "tutorial/ch03-store.md §doAppend", "write the record")
	require.Equal(t, "exercise: "+err.Error()+"\n", announced.String(), "announced once, however often it is made")
}
