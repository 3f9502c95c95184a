package broker

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker/transaction"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// initTransaction builds the transaction parts over the loaded store: the bridge, the service,
// the check listener (reaching producers through broker2Client) and the check service.
// Java: BrokerController#initialTransaction (the default, non-SPI implementations).
func (b *BrokerController) initTransaction() {
	bridge := transaction.NewTransactionalMessageBridge(transaction.Deps{
		Store:     b.messageStore,
		Offsets:   b.consumerOffsetManager,
		StoreHost: b.BrokerAddr,
		CreateSystemTopic: func(topic string, queueNums int32) {
			b.topicConfigManager.CreateTopicInSendMessageBackMethod(topic, queueNums, protocol.PermRead|protocol.PermWrite, 0)
		},
		Tracer: b.tr,
		Log:    b.log,
	})
	svc := transaction.NewTransactionalMessageServiceImpl(bridge, time.Duration(b.storeCfg.FileReservedTime)*time.Hour)
	b.transactionalMessageService = svc
	listener := transaction.NewAbstractTransactionalMessageCheckListener(bridge, broker2Client{b})
	b.transactionalMessageCheckService = transaction.NewTransactionalMessageCheckService(transaction.CheckConfig{
		TransactionTimeOut:       b.cfg.TransactionTimeOut,
		TransactionCheckMax:      b.cfg.TransactionCheckMax,
		TransactionCheckInterval: b.cfg.TransactionCheckInterval,
	}, svc, listener)
}

// TransactionalMessageService returns the transaction service (nil before Initialize).
func (b *BrokerController) TransactionalMessageService() transaction.TransactionalMessageService {
	return b.transactionalMessageService
}

// TransactionalMessageCheckService returns the check service (nil before Initialize). With the
// store's ManualServices its loop does not run: chapters and tests call OnWaitEnd.
func (b *BrokerController) TransactionalMessageCheckService() *transaction.TransactionalMessageCheckService {
	return b.transactionalMessageCheckService
}

// broker2Client is the check listener's way to producers. Java: Broker2Client.
type broker2Client struct{ b *BrokerController }

// GetAvailableChannel returns a live channel of group. Java: ProducerManager#getAvailableChannel.
func (c broker2Client) GetAvailableChannel(group string) *remoting.Channel {
	return c.b.producerManager.GetAvailableChannel(group)
}

// CheckProducerTransactionState sends CHECK_TRANSACTION_STATE (39) one way on ch: the header
// from h, the body m encoded as a message record.
// Java: Broker2Client#checkProducerTransactionState.
func (c broker2Client) CheckProducerTransactionState(_ string, ch *remoting.Channel, h transaction.CheckTransactionStateHeader,
	m *primitive.MessageExt) error {
	body, err := primitive.EncodeMessage(m)
	if err != nil {
		return err
	}
	req := remoting.NewRequest(protocol.CheckTransactionState, protocol.EncodeHeader(&protocol.CheckTransactionStateRequestHeader{
		TranStateTableOffset: int64(h.TranStateTableOffset),
		CommitLogOffset:      int64(h.CommitLogOffset),
		MsgID:                h.MsgID,
		TransactionID:        h.TransactionID,
		OffsetMsgID:          h.OffsetMsgID,
	}), body)
	return ch.InvokeOneway(req)
}
