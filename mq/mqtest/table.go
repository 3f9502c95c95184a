package mqtest

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
)

// Table prints rows under a header as a box-drawn table (tablewriter's default style), the
// way every chapter prints what it shows of the servers' state.
type Table struct{ t *tablewriter.Table }

// NewTable starts a table on w with the given column headers.
func NewTable(w io.Writer, header ...string) *Table {
	t := tablewriter.NewWriter(w)
	t.Header(toAny(header)...)
	return &Table{t: t}
}

// Row adds a row; each cell prints as fmt.Sprint prints it.
func (t *Table) Row(cells ...any) {
	row := make([]any, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	_ = t.t.Append(row...)
}

// Render writes the table.
func (t *Table) Render() { _ = t.t.Render() }

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
