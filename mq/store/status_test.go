package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatusNames: String prints Java's enum names (CREATE_MAPEDFILE_FAILED misspelt as in
// RocketMQ), and a value outside the table names its type and number.
func TestStatusNames(t *testing.T) {
	for _, c := range []struct {
		s    interface{ String() string }
		want string
	}{
		{PutOK, "PUT_OK"},
		{CreateMappedFileFailed, "CREATE_MAPEDFILE_FAILED"},
		{LMQConsumeQueueNumExceeded, "LMQ_CONSUME_QUEUE_NUM_EXCEEDED"},
		{PutMessageStatus(-1), "PutMessageStatus(-1)"},
		{AppendPutOK, "PUT_OK"},
		{AppendUnknownError, "UNKNOWN_ERROR"},
		{AppendMessageStatus(5), "AppendMessageStatus(5)"},
		{Found, "FOUND"},
		{NoMessageInQueue, "NO_MESSAGE_IN_QUEUE"},
		{GetMessageStatus(9), "GetMessageStatus(9)"},
	} {
		require.Equal(t, c.want, c.s.String())
	}
}
