/* Each game's skin, by its game type: the board page and the replay draw a game with the skin of
 * its type, and its raw view for a type without one. The interface a skin implements is
 * written down in docs/pages.md. */

import { skin as dragondale } from "./board-dragondale.js";
import { skin as factions } from "./board-factions.js";
import { skin as rite } from "./board-rite.js";

export const skins = { rite, factions, dragondale };
