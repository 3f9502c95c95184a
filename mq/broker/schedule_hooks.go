package broker

import (
	"fmt"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/schedule"
)

// initScheduleMessageService creates the delay-level service over the loaded store and loads
// config/delayOffset.json (or its .bak); a file that exists but does not decode stops the
// broker with an error naming it. Java: DefaultMessageStore#load → ScheduleMessageService#load
// (the store owns the service in Java; store/schedule sits above the store here, so the broker
// wires it).
func (b *BrokerController) initScheduleMessageService() error {
	sms, err := schedule.NewScheduleMessageService(b.messageStore, schedule.ConfigFromStore(&b.storeCfg, b.messageStore.Options()), b.tr)
	if err != nil {
		return fmt.Errorf("broker: create schedule message service: %w", err)
	}
	used, err := sms.Load()
	if err != nil {
		return fmt.Errorf("broker: load delay offsets: %w", err)
	}
	if used != "" {
		b.log.Info("load delay offsets OK", "file", used)
	}
	b.scheduleMessageService = sms
	return nil
}

// ScheduleMessageService returns the delay-level service (nil before Initialize). With the
// store's ManualServices its loop does not run: chapters call DoDeliver.
func (b *BrokerController) ScheduleMessageService() *schedule.ScheduleMessageService {
	return b.scheduleMessageService
}

// getAllDelayOffset answers GET_ALL_DELAY_OFFSET (45): the body is the delay offset table as
// fastjson's compact DelayOffsetSerializeWrapper JSON, levels unquoted:
// {"offsetTable":{1:0,2:5}}. Java: AdminBrokerProcessor#getAllDelayOffset (encode() of the
// in-memory table, what a slave's SlaveSynchronize#syncDelayOffset writes to its file).
func (b *BrokerController) getAllDelayOffset(_ *remoting.Channel, _ *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	if b.scheduleMessageService == nil {
		return remoting.NewResponse(protocol.SystemError, "No delay offset in this broker"), nil
	}
	resp := remoting.NewResponse(protocol.Success, "")
	resp.Body = b.scheduleMessageService.Encode(false)
	return resp, nil
}
