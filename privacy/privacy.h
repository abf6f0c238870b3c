/*
 * privacy/privacy.h: privacy accounting, one header per topic: trust models,
 * GDP conversions, per-victim blocks, attacker knowledge, the observer, the
 * structured fast paths, Muffliato's bound, the report and the certified
 * local bounds. A file may include only the topic headers it uses; this one
 * includes them all. Conventions and the PRIV_ERROR domain: privacy/base.h.
 */
#ifndef DPG_PRIVACY_H
#define DPG_PRIVACY_H

#include "privacy/base.h"
#include "privacy/blocks.h"
#include "privacy/gdp.h"
#include "privacy/knowledge.h"
#include "privacy/local.h"
#include "privacy/muffliato.h"
#include "privacy/observer.h"
#include "privacy/onerun.h"
#include "privacy/report.h"
#include "privacy/structured.h"
#include "privacy/trust.h"

#endif /* DPG_PRIVACY_H */
