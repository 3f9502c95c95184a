//go:build !ex_ch08

package transaction

import (
	"log/slog"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// fillOpRemoveMap reads up to 32 op messages from opOffset: an op message for a half offset
// below miniOffset (already behind the half queue's offset) is done at once; any other enters
// removeMap (half offset → op offset). Java: TransactionalMessageServiceImpl#fillOpRemoveMap.
func (s *TransactionalMessageServiceImpl) fillOpRemoveMap(removeMap map[store.QueueOffset]store.QueueOffset, queueID int32,
	opOffset, miniOffset store.QueueOffset, doneOpOffset *[]store.QueueOffset) (*pullResult, error) {
	b := s.bridge
	pull, err := b.GetOpMessage(queueID, opOffset, opMsgPullNums)
	if err != nil {
		return nil, err
	}
	if tr := b.d.Tracer; tr.Enabled() {
		tr.Step("TransactionalMessageServiceImpl#fillOpRemoveMap", slog.Int64("opOffset", int64(opOffset)),
			slog.Int("opMessages", len(pull.msgFoundList)), slog.Int64("nextOpOffset", int64(pull.nextBeginOffset)))
	}
	switch pull.status {
	case pullOffsetIllegal, pullNoMatchedMsg:
		b.UpdateConsumeOffset(OpHalfTopic, queueID, pull.nextBeginOffset)
		return pull, nil
	case pullNoNewMsg:
		return pull, nil
	}
	for _, op := range pull.msgFoundList {
		halfOffset, err := strconv.ParseInt(string(op.Body), 10, 64)
		if err != nil || op.Tags() != RemoveTag {
			b.d.Log.Error("found a illegal tag in opMessageExt", "queueOffset", op.QueueOffset, "tags", op.Tags())
			continue
		}
		if store.QueueOffset(halfOffset) < miniOffset {
			*doneOpOffset = append(*doneOpOffset, store.QueueOffset(op.QueueOffset))
		} else {
			removeMap[store.QueueOffset(halfOffset)] = store.QueueOffset(op.QueueOffset)
		}
	}
	return pull, nil
}
