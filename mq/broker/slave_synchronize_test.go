package broker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestFormatOffsetTableRolledBack pins what SlaveSynchronize#syncConsumerOffset's step lists as
// rolledBack: every queue offset the slave loses when the master's table is put over its own
// (offsetTable.putAll replaces each topic@group entry whole) — an offset that went down, and a
// queue the slave's entry had and the master's lacks (committed on the slave only, while the
// master was down) — but not an offset that stayed or went up, nor an entry the master did not
// send (it stays).
func TestFormatOffsetTableRolledBack(t *testing.T) {
	master := map[string]map[int32]store.QueueOffset{
		"T@g": {0: 6, 1: 3},
		"U@g": {0: 9},
	}
	old := map[string]map[int32]store.QueueOffset{
		"T@g": {0: 6, 1: 6, 2: 4}, // 1 goes back, 2 is gone
		"U@g": {0: 2},             // goes up
	}
	require.Equal(t, "T@g/0=6 T@g/1=3 U@g/0=9", formatOffsetTable(master, nil))
	require.Equal(t, "T@g/1=6->3 T@g/2=4->none", formatOffsetTable(master, old))
	require.Equal(t, "", formatOffsetTable(master, map[string]map[int32]store.QueueOffset{"T@g": nil, "U@g": nil}),
		"entries new to the slave lose nothing")
}
