#include "Logging.h"

Q_LOGGING_CATEGORY(lcModel, "eventdesk.model")
Q_LOGGING_CATEGORY(lcDelivery, "eventdesk.delivery")
Q_LOGGING_CATEGORY(lcScheduler, "eventdesk.scheduler")
Q_LOGGING_CATEGORY(lcStore, "eventdesk.store")
Q_LOGGING_CATEGORY(lcEndpoint, "eventdesk.endpoint")
Q_LOGGING_CATEGORY(lcDeadLetter, "eventdesk.deadletter")
Q_LOGGING_CATEGORY(lcDaemon, "eventdesk.daemon")
Q_LOGGING_CATEGORY(lcSecrets, "eventdesk.secrets")
