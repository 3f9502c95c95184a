//go:build ex_ch08

package transaction

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// fillOpRemoveMap reads up to 32 op messages from opOffset: an op message for a half offset
// below miniOffset (already behind the half queue's offset) is done at once; any other enters
// removeMap (half offset → op offset). Java: TransactionalMessageServiceImpl#fillOpRemoveMap.
func (s *TransactionalMessageServiceImpl) fillOpRemoveMap(removeMap map[store.QueueOffset]store.QueueOffset, queueID int32,
	opOffset, miniOffset store.QueueOffset, doneOpOffset *[]store.QueueOffset) (*pullResult, error) {
	// Hint: pull up to opMsgPullNums op messages from opOffset (s.bridge.GetOpMessage) and log
	// the step "TransactionalMessageServiceImpl#fillOpRemoveMap" (opOffset, opMessages,
	// nextOpOffset). OFFSET_ILLEGAL or NO_MATCHED_MSG move the op offset to nextBeginOffset;
	// NO_NEW_MSG returns as it is. Each op message's body is a half queue offset (decimal) under
	// the tag RemoveTag (others: log and skip): below miniOffset it is done already (its own
	// queue offset goes to doneOpOffset), else removeMap[halfOffset] = its op queue offset.
	return nil, exercise.NotImplemented("ch08", "tutorial/ch08-transaction.md §fillOpRemoveMap",
		"write TransactionalMessageServiceImpl.fillOpRemoveMap (mq/broker/transaction/fill_op_remove_map_stub.go): map each decided half offset to its op message")
}
