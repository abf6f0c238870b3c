/* privacy/privacy.h: privacy accounting and the Mafalda optimizer. */
#ifndef DPG_PRIVACY_H
#define DPG_PRIVACY_H

#include "topologies/topologies.h"

G_BEGIN_DECLS

#define PRIV_ERROR (priv_error_quark())
GQuark priv_error_quark(void);

G_END_DECLS

#endif /* DPG_PRIVACY_H */
