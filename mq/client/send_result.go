package client

import (
	"fmt"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// SendStatus is the outcome of a stored send: SEND_OK, or one of the three answers that still
// stored the message but could not meet the producer's wait (WAIT=true) for the disk or the slave.
// Mirrors org.apache.rocketmq.client.producer.SendStatus; each maps to one response code
// (remoting-protocol.md §4.3): SUCCESS 0, FLUSH_DISK_TIMEOUT 10, FLUSH_SLAVE_TIMEOUT 12,
// SLAVE_NOT_AVAILABLE 11.
type SendStatus int

const (
	SendOK SendStatus = iota
	FlushDiskTimeout
	FlushSlaveTimeout
	SlaveNotAvailable
)

var sendStatusNames = [...]string{"SEND_OK", "FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE"}

// sendStatusOf reads a send's answer code; false for any other code, a failure (a
// *remoting.RemoteError). A switch, not a map: it runs on every send answer.
// Java: MQClientAPIImpl#processSendResponse.
func sendStatusOf(code int32) (SendStatus, bool) {
	switch code {
	case protocol.Success:
		return SendOK, true
	case protocol.FlushDiskTimeout:
		return FlushDiskTimeout, true
	case protocol.FlushSlaveTimeout:
		return FlushSlaveTimeout, true
	case protocol.SlaveNotAvailable:
		return SlaveNotAvailable, true
	}
	return 0, false
}

// String returns Java's enum name.
func (s SendStatus) String() string {
	if s >= 0 && int(s) < len(sendStatusNames) {
		return sendStatusNames[s]
	}
	return fmt.Sprintf("SendStatus(%d)", int(s))
}

// SendResult is what a stored send returns.
// Mirrors org.apache.rocketmq.client.producer.SendResult.
type SendResult struct {
	SendStatus SendStatus
	// MsgID is the message's UNIQ_KEY (the producer-made id, see CreateUniqID); for a batch the
	// UNIQ_KEYs of its messages joined with ",".
	MsgID string
	// MessageQueue is the queue written (the broker's queueId answer).
	MessageQueue primitive.MessageQueue
	// QueueOffset is the ConsumeQueue index of the (first) stored message, in ConsumeQueue units.
	QueueOffset int64
	// TransactionID is the response's transactionId (not filled by a 4.9.8 broker).
	TransactionID string
	// OffsetMsgID is the broker's msgId: hex(store host, CommitLog offset), 32 characters for
	// IPv4; comma-separated for a batch.
	OffsetMsgID string
	// RegionID is the broker's MSG_REGION ("DefaultRegion" when absent).
	RegionID string
	// TraceOn is the broker's TRACE_ON (true unless "false").
	TraceOn bool
}

// String is for logs, in Java's SendResult#toString form.
func (r *SendResult) String() string {
	return fmt.Sprintf("SendResult [sendStatus=%s, msgId=%s, offsetMsgId=%s, messageQueue=%s, queueOffset=%d]",
		r.SendStatus, r.MsgID, r.OffsetMsgID, r.MessageQueue, r.QueueOffset)
}

// CommunicationMode is how a send waits: SYNC for the response, ASYNC with a callback, ONEWAY
// not at all. Mirrors org.apache.rocketmq.client.impl.CommunicationMode.
type CommunicationMode int

const (
	Sync CommunicationMode = iota
	Async
	Oneway
)

var communicationModeNames = [...]string{Sync: "SYNC", Async: "ASYNC", Oneway: "ONEWAY"}

// String returns Java's enum name.
func (m CommunicationMode) String() string {
	if m >= 0 && int(m) < len(communicationModeNames) {
		return communicationModeNames[m]
	}
	return fmt.Sprintf("CommunicationMode(%d)", int(m))
}

// ServiceState is the life cycle of a producer, consumer or client instance.
// Mirrors org.apache.rocketmq.common.ServiceState.
type ServiceState int32

const (
	CreateJust ServiceState = iota
	Running
	ShutdownAlready
	StartFailed
)

var serviceStateNames = [...]string{CreateJust: "CREATE_JUST", Running: "RUNNING", ShutdownAlready: "SHUTDOWN_ALREADY",
	StartFailed: "START_FAILED"}

// String returns Java's enum name.
func (s ServiceState) String() string {
	if s >= 0 && int(s) < len(serviceStateNames) {
		return serviceStateNames[s]
	}
	return fmt.Sprintf("ServiceState(%d)", int(s))
}
