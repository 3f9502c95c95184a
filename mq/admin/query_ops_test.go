package admin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TestHasKey: a message matches a key query only for its own topic and an exact KEYS word or
// its UNIQ_KEY — what the index's topic#key hash cannot tell apart. Java: MQAdminImpl#queryMessage's
// key check.
func TestHasKey(t *testing.T) {
	m := &primitive.MessageExt{Message: primitive.Message{Topic: "T", Properties: map[string]string{
		primitive.PropertyKeys: "order-1 user-7", primitive.PropertyUniqClientMessageIDKeyIdx: "ABC"}}}
	for key, want := range map[string]bool{"order-1": true, "user-7": true, "ABC": true, "order": false,
		"order-1 user-7": false, "": false, "user-77": false} {
		require.Equal(t, want, HasKey(m, "T", key), key)
	}
	require.False(t, HasKey(m, "Other", "order-1"), "another topic")
	bare := &primitive.MessageExt{Message: primitive.Message{Topic: "T"}}
	require.False(t, HasKey(bare, "T", ""), "no KEYS is no empty key")
}

// TestNewNeedsANameServer: no address is ErrNoNameServer.
func TestNewNeedsANameServer(t *testing.T) {
	_, err := New(Config{NamesrvAddr: " ; "})
	require.ErrorIs(t, err, ErrNoNameServer)
}
