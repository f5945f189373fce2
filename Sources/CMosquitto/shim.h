// libmosquitto (Debian's libmosquitto-dev): the MQTT 3.1.1/5 client kiosk's fleet control uses.
#include <mosquitto.h>
