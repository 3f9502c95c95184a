package broker

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// ClientHousekeepingService removes client channels from the consumer and producer tables when
// their connection closes, idles out or fails (it is the remoting server's
// ChannelEventListener), and scans every ClientHousekeepingInterval (10 s, first after 10 s)
// for channels not refreshed by a heartbeat within ChannelExpiredTimeout (120 s).
// Mirrors org.apache.rocketmq.broker.client.ClientHousekeepingService.
type ClientHousekeepingService struct {
	consumers *ConsumerManager
	producers *ProducerManager
	interval  time.Duration
	svc       *service.ServiceThread
}

// NewClientHousekeepingService returns the service (not started).
func NewClientHousekeepingService(consumers *ConsumerManager, producers *ProducerManager, interval time.Duration) *ClientHousekeepingService {
	return &ClientHousekeepingService{consumers: consumers, producers: producers, interval: interval,
		svc: service.New("ClientHousekeepingService")}
}

// Start runs ScanExceptionChannel every interval (first after interval).
func (s *ClientHousekeepingService) Start() {
	s.svc.RunEvery(s.interval, s.interval, s.ScanExceptionChannel)
}

// Shutdown stops the scan and waits for it.
func (s *ClientHousekeepingService) Shutdown() { s.svc.Shutdown() }

// ScanExceptionChannel expires producer and consumer channels not refreshed in time.
// Java: ClientHousekeepingService#scanExceptionChannel.
func (s *ClientHousekeepingService) ScanExceptionChannel() {
	s.producers.ScanNotActiveChannel()
	s.consumers.ScanNotActiveChannel()
}

// OnChannelConnect implements remoting.ChannelEventListener (nothing to do).
func (s *ClientHousekeepingService) OnChannelConnect(remoteAddr string, ch *remoting.Channel) {}

// OnChannelClose implements remoting.ChannelEventListener.
func (s *ClientHousekeepingService) OnChannelClose(remoteAddr string, ch *remoting.Channel) {
	s.channelGone(remoteAddr, ch)
}

// OnChannelException implements remoting.ChannelEventListener.
func (s *ClientHousekeepingService) OnChannelException(remoteAddr string, ch *remoting.Channel) {
	s.channelGone(remoteAddr, ch)
}

// OnChannelIdle implements remoting.ChannelEventListener.
func (s *ClientHousekeepingService) OnChannelIdle(remoteAddr string, ch *remoting.Channel) {
	s.channelGone(remoteAddr, ch)
}

func (s *ClientHousekeepingService) channelGone(remoteAddr string, ch *remoting.Channel) {
	s.consumers.DoChannelCloseEvent(remoteAddr, ch)
	s.producers.DoChannelCloseEvent(remoteAddr, ch)
}
