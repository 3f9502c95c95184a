package client

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// EndTransactionOneway sends END_TRANSACTION (37) one way to addr: the producer's decision
// about a half message (h.CommitOrRollback 8 commit, 12 rollback, 0 unknown), after its local
// transaction or a check-back; remark carries a local failure's text (empty for none).
// Java: MQClientAPIImpl#endTransactionOneway.
func (a *MQClientAPI) EndTransactionOneway(addr string, h *protocol.EndTransactionRequestHeader, remark string) error {
	req := remoting.NewRequest(protocol.EndTransaction, protocol.EncodeHeader(h), nil)
	req.Remark = remark
	return a.client.InvokeOneway(addr, req)
}
