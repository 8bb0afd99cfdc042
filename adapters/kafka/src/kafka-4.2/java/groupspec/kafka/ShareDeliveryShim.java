package groupspec.kafka;

/** Kafka 4.2.1: the share_delivery machine is driven (ShareDeliveryMachine). */
final class ShareDeliveryShim {
    private ShareDeliveryShim() {
    }

    /** The machine, or null when this build leaves it out (then {@link #ABSENT} says why). */
    static Adapter.Machine machine() {
        return new ShareDeliveryMachine();
    }

    static final String ABSENT = "";
}
