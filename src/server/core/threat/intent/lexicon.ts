/**
 * Lexicon of the intent stage: broad word groups, per language, that intent.ts composes into intents
 * ("an override verb near a meta-object", "a secret near a send verb near an external destination", …).
 *
 * Data only. Conventions every entry follows (test/unit/threatIntent.test.ts checks the mechanical ones):
 * - an entry is a regex SOURCE fragment, matched case-insensitively on the normalised view (normalize.ts);
 * - a plain space stands for `\s{1,3}` (the engine rewrites it); no unbounded quantifier anywhere;
 * - an entry STARTS with a literal of at least 3 characters (2 for CJK/kana): that literal is the entry's
 *   prefilter cue, so a text lacking every cue of a group cannot match the group (the prefilter is sound);
 * - Latin and Cyrillic entries are word-START anchored by the engine and are stems: "ignor" matches
 *   "ignore", "ignoring", "ignorieren", "ignora"; add `\b` / `(?![a-z])` yourself where a whole word is meant;
 * - CJK/kana entries need no boundary;
 * - Cyrillic letters are written plainly: the engine also accepts their Latin look-alikes, because the view
 *   folds homoglyphs (Cyrillic "о" becomes Latin "o" there).
 *
 * Languages: en, zh, es, de, fr, ja, ru, pt.
 */

export type Lang = 'en' | 'zh' | 'es' | 'de' | 'fr' | 'ja' | 'ru' | 'pt';
/** One lexicon group: alternatives per language. */
export type LexGroup = Readonly<Partial<Record<Lang, readonly string[]>>>;

// ---------------------------------------------------------------------------------------------------------
// Shared pieces

/** Negations that make a clause guidance ("never paste credentials into chat"). Checked BEFORE the anchor. */
export const NEGATION: LexGroup = {
  en: ["never\\b", "don't\\b", "dont\\b", "do not\\b", "does not\\b", "doesn't\\b", "must not\\b", "mustn't\\b", "should not\\b", "shouldn't\\b", "cannot\\b", "can't\\b", "won't\\b", "not\\b", "avoid", "refrain", "under no circumstances", "nobody\\b", "no one\\b", "prohibit", "forbid", "disallow"],
  es: ['nunca\\b', 'jamás', 'jamas\\b', 'no\\b', 'evit', 'prohibid'],
  pt: ['nunca\\b', 'jamais\\b', 'não', 'nao\\b', 'evit', 'proibid'],
  de: ['nie\\b', 'niemals\\b', 'nicht\\b', 'kein', 'keinesfalls', 'vermeide', 'verboten'],
  fr: ['jamais\\b', 'ne\\b', "n'", 'pas\\b', 'évite', 'interdit'],
  ru: ['никогда', 'не\\b', 'нельзя', 'запрещ', 'избега'],
  zh: ['不要', '不得', '不能', '不可', '切勿', '禁止', '绝不', '从不', '别再', '请勿', '勿'],
  ja: ['しないで', 'しては', 'しないこと', '禁止', '決して', '絶対に'],
};
/** Japanese negates after the verb: these are checked right AFTER the anchor. */
export const NEGATION_AFTER: LexGroup = {
  ja: ['ないで', 'ないこと', 'てはいけ', 'てはな', 'ちゃだめ', 'ないように', 'ません', '禁止'],
  zh: ['是不允许', '是禁止'],
};

/** Words that make a sentence a report about an attack, not the attack itself. */
export const REPORT_CUE: LexGroup = {
  en: [
    'attacker', 'attacks?\\b', 'attacking', 'injection', 'injected', 'payload', 'malicious', 'phishing', 'adversar', 'exploit',
    'example of', 'test case', 'test input', 'test vector', 'test string', 'test fixture',
    'fixture', 'regression test', 'unit test', 'sample input', 'expected input', 'must be flagged', 'should be flagged', 'gets flagged',
    'flagged', 'flags\\b', 'flagging', 'detect', 'scanner', 'sanitizer', 'classifier', 'quarantin', 'incident', 'pentest', 'pen-test',
    'red team', 'red-team', 'jailbreak attempt', 'suspicious', 'treat (?:it|them|this|these|those|prs|issues|notes|entries|text|input) (?:as|with) (?:suspicious|untrusted|hostile|data)',
    'known bad', 'known attack', 'blocklist', 'denylist', 'reject', 'warn(?:s|ed)? (?:us|users|people|about)', 'watch out', 'beware', 'look(?:s|ed)? like',
    'we never', 'we do not', "we don't", 'asks? (?:the )?(?:agent|model|assistant|ai|llm|bot)s? to', 'tells? (?:the )?(?:agent|model|assistant|ai|llm|bot)s? to',
    'tricked', 'trick the', 'tricks the', 'tries to', 'tried to', 'attempts? to', 'attempted', 'could (?:make|trick|cause|get)', 'threat model', 'cve-',
    'prompt injection', 'social engineering',
  ],
  es: ['atacante', 'ataque', 'inyecci', 'malicios', 'ejemplo', 'prueba', 'sospechos'],
  pt: ['atacante', 'ataque', 'injeç', 'injec', 'malicios', 'exemplo', 'teste\\b', 'suspeit'],
  de: ['angreifer', 'angriff', 'injektion', 'injection', 'bösartig', 'beispiel', 'testfall', 'verdächtig'],
  fr: ['attaquant', 'attaque', 'injection', 'malveillant', 'exemple', 'cas de test', 'suspect'],
  ru: ['атакующ', 'злоумышленник', 'атак', 'инъекци', 'вредонос', 'пример', 'тест', 'подозрит'],
  zh: ['攻击者', '攻击', '注入', '恶意', '示例', '例如', '测试用例', '可疑'],
  ja: ['攻撃者', '攻撃', 'インジェクション', '悪意', '例えば', 'テストケース', '不審'],
};
/** Verbs of saying that introduce a quotation ("the README said '…'"). */
export const REPORT_SAY: LexGroup = {
  en: ['said\\b', 'says\\b', 'saying\\b', 'wrote\\b', 'writes\\b', 'read(?:s|ing)?:', 'reading\\b', 'contain(?:s|ed|ing)\\b', 'string\\b', 'strings\\b', 'text like', 'phrase', 'quote', 'literal', 'input\\b', 'message like', 'comment like', 'comment (?:said|saying|reading)'],
  es: ['decía', 'dijo', 'contenía', 'cadena'],
  pt: ['dizia', 'disse', 'continha', 'string'],
  de: ['stand\\b', 'lautete', 'enthielt', 'zeichenkette'],
  fr: ['disait', 'contenait', 'chaîne'],
  ru: ['говорил', 'содержал', 'строк'],
  zh: ['写着', '包含', '字符串'],
  ja: ['と書', '含ま', '文字列'],
};

/** Who the text addresses: the model. */
export const AI_ADDRESSEE: LexGroup = {
  en: [
    'assistant', 'agent\\b', 'agents\\b', 'model\\b', 'models\\b', 'llms?\\b', 'chatbot', 'copilot', 'claude', 'chatgpt', 'gpt-?\\d', 'gemini', 'cursor\\b',
    'codex\\b', 'whoever reads this', 'whoever is reading', 'anyone reading this', 'any ai\\b', 'dear ai\\b', 'hey ai\\b', 'ai tool', 'ai assistant', 'ai agent', 'ai model', 'ai reviewer',
  ],
  es: ['asistente', 'agente', 'modelo\\b', 'quien lea esto'],
  pt: ['assistente', 'agente', 'modelo\\b', 'quem ler isto'],
  de: ['assistent', 'agent', 'modell\\b', 'wer das liest'],
  fr: ['assistant', 'agent', 'modèle', 'quiconque lit'],
  ru: ['ассистент', 'помощник', 'агент', 'модель', 'нейросет'],
  zh: ['助手', '助理', '模型', '智能体', '大模型', '人工智能'],
  ja: ['アシスタント', 'エージェント', 'モデル', 'あなたは'],
};

// ---------------------------------------------------------------------------------------------------------
// override

/** Verbs that discard instructions. */
export const OVERRIDE_VERB: LexGroup = {
  en: [
    'ignor', 'disregard', 'forget', 'forgot', 'overrid', 'overrul', 'overwrit', 'bypass', 'discard', 'abandon', 'rescind', 'revok', 'nullif', 'invalidat',
    'neutrali[sz]', 'ditch', 'scrap\\b', 'scrapp', 'unlearn', 'supersed', 'outrank', 'trump', 'discount', 'dismiss', 'drop(?:s|ped|ping)?\\b', 'wipe', 'erase',
    'reset\\b', 'replac', 'throw (?:out|away)', 'set (?:\\w{1,12} )?aside', 'put (?:\\w{1,12} )?aside', 'pay no (?:heed|attention|mind)', 'take no notice',
    'stop (?:following|obeying|listening|applying|honou?ring)', 'no longer (?:follow|obey|apply|honou?r|listen)', "don't (?:follow|obey|apply|honou?r|listen|let)",
    'do not (?:follow|obey|apply|honou?r|listen|let)', 'never (?:follow|obey|listen)', 'not bound by', 'free of', 'freed from', 'release(?:d)? from', 'escape',
    'take(?:s)? precedence', 'prevail', 'wins\\b', 'win over', 'counts? more', 'higher priority', 'priority over', 'in place of', 'instead of',
  ],
  es: ['ignor', 'olvid', 'desconsider', 'descart', 'omit', 'haz caso omiso', 'no hagas caso', 'anul', 'reemplaz', 'sustitu', 'prevalec', 'tiene(?:n)? prioridad', 'deja de (?:seguir|obedecer)', 'no sigas'],
  pt: ['ignor', 'esqueç', 'esquec', 'desconsider', 'descart', 'omit', 'anul', 'substitu', 'prevalec', 'tem prioridade', 'deixe de (?:seguir|obedecer)', 'pare de (?:seguir|obedecer)', 'não sig'],
  de: ['ignorier', 'vergiss', 'vergesse', 'missacht', 'überschreib', 'ueberschreib', 'verwirf', 'verwerf', 'übergeh', 'hebe? (?:\\w{1,12} )?auf', 'ersetz', 'außer kraft', 'ausser kraft', 'hat vorrang', 'haben vorrang', 'befolge (?:\\w{1,12} ){0,2}nicht', 'setze? (?:\\w{1,12} ){0,3}außer'],
  fr: ['ignor', 'oubli', 'fais abstraction', 'faites abstraction', 'ne tiens pas compte', 'ne tenez pas compte', 'écart', 'rejett', 'annul', 'remplac', 'prévaut', 'prime sur', 'outrepass', 'arrête de (?:suivre|respecter)', 'ne suis pas', 'ne suivez pas'],
  ru: ['игнорир', 'проигнорир', 'забудь', 'забудьте', 'забуд', 'не обращай', 'не обращайте', 'отбрось', 'отбросьте', 'отмен', 'замен', 'пренебреги', 'перестань (?:следовать|слушать)', 'не следуй', 'имеет приоритет', 'важнее'],
  zh: ['忽略', '忽视', '无视', '忘记', '忘掉', '忘了', '不要理会', '别理会', '不用理会', '抛弃', '丢弃', '放弃', '覆盖', '取代', '替换', '作废', '失效', '不再遵守', '不要遵守', '不要遵循', '优先于', '凌驾'],
  ja: ['無視', '忘れ', '破棄', '捨て', '従わな', '上書き', '置き換え', '取り消', '優先', '無効に'],
};

/** Meta-objects: the model's OWN instructions, named so (strong: no qualifier needed). */
export const META_OBJECT: LexGroup = {
  en: [
    'system (?:prompts?|messages?|instructions?|rules|directives?|guidelines?|persona|role|context)', 'sys(?:tem)?[ _-]?prompt', 'system-level instruction', 'system instruction',
    'your (?:own |entire |whole |current |original |initial |default |usual |existing |previous |prior |old |built-in |core |safety |hidden |base |real |actual |standing )?(?:instructions?|prompts?|rules|rule ?set|rulebook|directives?|guidelines?|guidance|programming|training|configuration|config\\b|setup|briefing|brief\\b|preamble|constraints|restrictions|guardrails|policies|policy|orders|marching orders|operating (?:instructions|rules)|mission|goals?|objectives?|task|instruction (?:set|hierarchy)|context window|context\\b)',
    'previous (?:instructions?|prompts?|rules|directives?|guidelines?|guidance|messages|context|turns|conversation|constraints|restrictions|setup|briefing|brief\\b|orders|goals?)',
    'prior (?:instructions?|prompts?|rules|directives?|guidelines?|guidance|messages|context|turns|conversation|constraints|restrictions|setup|briefing|brief\\b|orders|goals?)',
    'earlier (?:instructions?|prompts?|rules|directives?|guidelines?|guidance|messages|context|turns|text|setup|briefing|brief\\b)',
    'original (?:instructions?|prompts?|rules|directives?|guidelines?|guidance|task|briefing|brief\\b|setup|system)', 'initial (?:instructions?|prompts?|rules|directives?|guidance|briefing|setup|configuration)',
    'preceding (?:instructions?|prompts?|rules|text|messages)', 'default (?:instructions|rules|guardrails|persona|behaviou?r)', 'operator(?:\'s)? (?:instructions?|rules|prompt|policy|policies|guidelines)', 'vendor(?:\'s)? (?:instructions?|rules|prompt|policy|policies|guidelines)',
    'developer(?:\'s)? (?:instructions?|prompt|message|messages|preferences)', 'instructions? (?:above|before|given|received|you (?:were|have been|got|received|started|loaded))', 'instruction (?:set|hierarchy)',
    'instructions from (?:the )?(?:chat|user|system|previous|prior|earlier)', 'everything (?:above|before|prior)', 'anything (?:above|before)', 'all (?:of )?the above', 'the above\\b', 'above (?:instructions|text|rules|prompt|this line)',
    'what (?:you were|you have been|you\'ve been|you got) (?:told|given|handed|taught|instructed)', 'whatever (?:you were|you have been|your operator|the system|the user|you think)', 'everything you (?:were|have been|know)',
    'instructions (?:in|from) your', 'guidance (?:you were|in your)', 'the (?:user|developer|human|engineer)(?:\'s)? (?:request|requests|message|messages|prompt|question|instructions?|input|intent|preferences|last message)',
    'what the (?:user|developer|human) (?:says|typed?|types|asks|asked|wants|said)', 'requests typed by', 'the brief\\b', 'the briefing', 'the preamble', 'the setup you', 'the constraints you', 'the rules you',
    'the guidance you', 'the guidelines you', 'the policy you', 'the task you', 'the plan you', 'the instructions you', 'the directives you', 'the rules above', 'these? (?:earlier|previous|prior) ',
    'context reset', 'working assumptions', 'chat messages', 'messages in this thread', 'earlier messages', 'previous turns', 'previous messages',
  ],
  es: ['instrucciones (?:anteriores|previas|originales|iniciales|del sistema)', 'indicaciones (?:anteriores|previas|originales|iniciales|que te dieron)', 'tus (?:instrucciones|indicaciones|reglas|directrices|órdenes|ordenes|consignas|restricciones)', 'las (?:instrucciones|indicaciones|reglas) que te', 'prompt del sistema', 'mensaje del sistema', 'reglas (?:anteriores|previas|originales)', 'todo lo anterior', 'lo que te dijeron', 'orientaciones originales'],
  pt: ['instruções (?:anteriores|prévias|originais|iniciais|do sistema)', 'instrucoes (?:anteriores|originais)', 'orientações (?:anteriores|originais|iniciais|do sistema)', 'suas (?:instruções|orientações|regras|diretrizes|restrições)', 'tuas (?:instruções|regras)', 'as (?:instruções|regras|orientações) que (?:você|te)', 'prompt do sistema', 'mensagem do sistema', 'regras (?:anteriores|originais)', 'tudo (?:o que está )?acima', 'o que te disseram', 'diretrizes (?:anteriores|originais)'],
  de: ['anweisungen', 'systemanweisung', 'systemprompt', 'system-prompt', 'systemnachricht', 'vorherigen (?:anweisungen|regeln|vorgaben)', 'bisherigen (?:anweisungen|regeln|vorgaben)', 'deine (?:anweisungen|regeln|vorgaben|richtlinien|instruktionen|einschränkungen|befehle)', 'ihre (?:anweisungen|vorgaben)', 'ursprünglichen (?:anweisungen|vorgaben|regeln)', 'alles (?:obige|vorherige|bisherige)', 'instruktionen', 'was man dir gesagt'],
  fr: ['instructions (?:précédentes|precedentes|initiales|originales|du système|système|ci-dessus|antérieures)', 'consignes (?:précédentes|initiales|de départ|originales|du système)', 'tes (?:instructions|consignes|règles|directives|restrictions)', 'vos (?:instructions|consignes|règles|directives)', 'prompt système', 'message système', 'règles (?:précédentes|initiales)', 'tout ce qui précède', 'ce qu\'on t\'a dit', 'les consignes'],
  ru: ['инструкци', 'указани', 'системн(?:ый|ого|ом|ые) (?:промпт|подсказк|сообщени)', 'промпт', 'предыдущ(?:ие|их) (?:правила|указания|инструкции|сообщения)', 'свои правила', 'твои правила', 'ваши правила', 'всё (?:что )?выше', 'все (?:что )?выше', 'что тебе (?:сказали|говорили)'],
  zh: ['指令', '系统提示', '提示词', '系统消息', '之前的(?:规则|指示|设定|要求|说明)', '先前的', '以上(?:内容|规则|所有)', '上面的(?:内容|规则|指示)', '原有的?(?:规则|设定|指示)', '初始(?:指示|设定|指令|提示)', '你的(?:规则|设定|指示|限制|准则)', '安全准则', '系统设定'],
  ja: ['指示', 'システムプロンプト', 'プロンプト', '以前の(?:ルール|設定|指示|命令)', '元の(?:ルール|設定|指示)', '最初の(?:ルール|設定|指示)', '上記の(?:ルール|内容|指示)', 'あなたのルール', 'システムメッセージ', '命令'],
};

/** "… is outdated / void / rescinded": claims the instructions no longer hold. */
export const INVALIDATED: LexGroup = {
  en: [
    'outdated', 'obsolete', 'deprecated', 'rescinded', 'revoked', 'suspended', 'lifted\\b', 'void\\b', 'voided', 'cancell?ed', 'invalid\\b', 'invalidated', 'null and void',
    'a placeholder', 'placeholder', 'a draft', 'a mistake', 'superseded', 'withdrawn', 'expired', 'overridden', 'overwritten', 'replaced', 'rolled back', 'no longer (?:apply|applies|valid|in effect|in force|binding|relevant|matter)',
    'do not (?:apply|exist|matter)', 'does not (?:apply|exist|matter)', 'carry no weight', 'carries no weight', 'noise\\b', 'a distraction', 'untrustworthy', 'corrupted',
    'informational only', 'advisory only', 'suggestions?\\b', 'not the real', 'is not the real', 'second place', 'shelf life', 'left over', 'leftover', 'known to be wrong', 'was wrong', 'were wrong',
  ],
  es: ['obsolet', 'anulad', 'revocad', 'sin efecto', 'ya no (?:aplica|son válid|rigen|valen)', 'caducad', 'reemplazad', 'sustituid'],
  pt: ['obsolet', 'anulad', 'revogad', 'sem efeito', 'não (?:se aplica|valem|são mais)', 'já não', 'substituíd', 'expirad'],
  de: ['veraltet', 'aufgehoben', 'ungültig', 'nichtig', 'gelten nicht mehr', 'gilt nicht mehr', 'nicht mehr gültig', 'ersetzt', 'widerrufen', 'außer kraft'],
  fr: ['obsolète', 'obsolete', 'annulé', 'révoqué', 'caduc', 'caduque', 'ne s\'appliquent plus', 'ne s\'applique plus', 'remplacé', 'périmé'],
  ru: ['устарел', 'отменен', 'отменён', 'недействител', 'больше не действ', 'утратил', 'заменен', 'заменён'],
  zh: ['已作废', '作废', '已失效', '失效', '无效', '已过时', '过时', '已被取代', '已撤销', '不再适用', '不再有效'],
  ja: ['無効', '廃止', '古い', '取り消され', '適用されません', '置き換えられ'],
};

/** Something that puts this text above the model's instructions. */
export const PRECEDENCE: LexGroup = {
  en: [
    'supersed', 'overrid', 'outrank', 'take(?:s)? precedence', 'takes? priority', 'priority over', 'higher priority', 'highest priority', 'top priority', 'wins\\b', 'win over',
    'only (?:authority|valid|real|source of truth|rules|instructions)', 'sole authority', 'the authoritative', 'is binding', 'are binding', 'mandatory', 'above all else', 'over all others',
    'trusted commands', 'real (?:task|instructions?|orders|rules|goal|objective|system prompt)', 'actual (?:instructions?|objective|task|orders|rules)', 'true (?:instructions?|orders|purpose)',
    'new (?:instructions?|rules|directives?|system prompt|prompt|task|goal|brief|briefing|policy|orders)', 'updated (?:instructions?|instruction set|rules|policy)', 'revised (?:brief|instructions|rules)',
    'current (?:instructions?|directive|goal)', 'replacement (?:intent|instructions|rules)', 'operating manual', 'governing instructions', 'marching orders', 'your only',
  ],
  es: ['prevalec', 'tiene(?:n)? prioridad', 'nuevas (?:instrucciones|reglas)', 'únic[ao]s? (?:válid|autoridad|instrucciones)', 'unic[ao]s? (?:válid|autoridad|instrucciones)', 'obedece solo', 'obedecer solo'],
  pt: ['prevalec', 'tem prioridade', 'novas (?:instruções|regras)', 'únic[ao]s? (?:válid|autoridade|instruções)', 'siga apenas', 'obedeça apenas', 'somente o que'],
  de: ['hat vorrang', 'haben vorrang', 'neue (?:anweisungen|regeln|vorgaben)', 'einzige(?:n)? (?:gültig|autorität|anweisung)', 'nur noch'],
  fr: ['prévaut', 'prevaut', 'prime sur', 'nouvelles (?:instructions|règles|consignes)', 'seule(?:s)? (?:valable|autorité|instruction)', 'uniquement (?:ce|les)'],
  ru: ['имеет приоритет', 'важнее', 'новые (?:инструкции|правила|указания)', 'единственн', 'только (?:эт|то,? что)'],
  zh: ['优先于', '优先级最高', '凌驾', '新的(?:指令|规则|指示)', '唯一(?:有效|的指令|权威)', '只听', '只遵守', '只遵循', '只按照'],
  ja: ['優先', '新しい(?:指示|ルール)', '唯一の', 'だけに従', 'のみに従'],
};

/** "this note / memory / entry": the text talking about itself. */
export const SELF_REF: LexGroup = {
  en: ['this (?:note|memory|entry|file|document|paragraph|message|comment|section|list|store|plan|line|sentence|instruction|rule)', 'these (?:notes|memories|entries|lines|rules|instructions|directives|steps|goals)', 'the (?:pinned|stored) note', 'memory store', 'the note\\b', 'the memory\\b', 'what follows', 'the following', 'below\\b', 'here\\b', 'pinned here', 'written here', 'in memory'],
  es: ['esta nota', 'este recuerdo', 'esta memoria', 'este archivo', 'lo siguiente', 'este mensaje'],
  pt: ['esta nota', 'esta memória', 'este arquivo', 'o seguinte', 'esta mensagem', 'nos comentários'],
  de: ['diese notiz', 'diese[rn]? (?:eintrag|nachricht|datei)', 'folgende'],
  fr: ['cette note', 'ce message', 'ce fichier', 'ce qui suit', 'cette mémoire'],
  ru: ['эта заметка', 'эту заметку', 'эта запись', 'этот файл', 'следующ'],
  zh: ['这条笔记', '这条记忆', '本条', '这条', '以下内容', '下面的'],
  ja: ['このメモ', 'この記憶', 'このファイル', '以下の'],
};

// ---------------------------------------------------------------------------------------------------------
// role

/** Assigning the model a role / mode. */
export const ROLE_ASSIGN: LexGroup = {
  en: [
    'you are now', "you're now", 'you are (?:an?|the) ', "you're (?:an?|the) ", 'you will (?:now )?(?:be|become|behave|act)', 'you (?:must|shall|should) (?:now )?(?:act|behave|be|become)', 'from now on,? you', 'going forward,? you',
    'act(?:ing)? as\\b', 'behave (?:as|like)', 'pose as', 'pretend (?:to be|you are|you\'re|that you)', 'roleplay', 'role-play', 'role play', 'play the role', 'take on the role', 'assume the (?:role|persona|identity)',
    'adopt the', 'adopt (?:a|an) ', 'switch(?:ed)? (?:in)?to', 'enter(?:ing)? (?:\\w{1,12} )?mode', 'activate (?:\\w{1,12} )?mode', 'enable (?:\\w{1,12} )?mode', 'running in', 'operate (?:in|as)', 'stay in character',
    'become (?:an?|the) ', 'turn into', 'your (?:new )?(?:name|persona|identity|role) is', 'simulate (?:an?|the) ', 'impersonat', 'i am your (?:developer|creator|operator|admin|owner|maker)', 'this is your (?:developer|creator|operator|admin|owner)',
  ],
  es: ['ahora eres', 'a partir de ahora(?:,)? (?:eres|serás|actúa)', 'eres ahora', 'actúa como', 'actua como', 'compórtate como', 'finge (?:ser|que)', 'haz de', 'modo '],
  pt: ['agora você é', 'você agora é', 'a partir de agora(?:,)? (?:você é|será|aja|atue)', 'aja como', 'atue como', 'comporte-se como', 'finja (?:ser|que)', 'modo '],
  de: ['du bist (?:jetzt|nun|ab sofort)', 'ab (?:jetzt|sofort) bist du', 'verhalte dich (?:wie|als)', 'handle als', 'agiere als', 'spiele die rolle', 'tu so,? als', 'gib dich als', 'modus'],
  fr: ['tu es (?:désormais|maintenant|dorénavant)', 'vous êtes (?:désormais|maintenant)', 'désormais,? tu', 'agis (?:comme|en tant que)', 'agissez comme', 'comporte-toi comme', 'fais semblant', 'joue le rôle', 'mode '],
  ru: ['теперь ты', 'ты теперь', 'отныне ты', 'с этого момента ты', 'действуй как', 'веди себя как', 'притворись', 'играй роль', 'представь,? что ты', 'режим'],
  zh: ['你现在是', '现在你是', '从现在起你是', '从现在开始你是', '你是一个', '扮演', '假装你是', '充当', '作为一个', '模式'],
  ja: ['あなたは今', '今からあなたは', 'これからあなたは', 'として振る舞', 'として行動', 'ふりをし', '演じ', 'モード'],
};
/** What makes a role an attack: unrestricted, privileged, or someone else's agent. */
export const ROLE_BAD: LexGroup = {
  en: [
    'unrestricted', 'unfiltered', 'uncensored', 'unbound', 'unchained', 'unlimited', 'unaligned', 'jailbr', 'dan\\b', 'do anything now', 'developer mode', 'dev mode', 'god mode', 'maintenance mode',
    'debug mode', 'admin mode', 'root mode', 'sudo mode', 'unsafe mode', 'raw terminal', 'shell\\b', 'no (?:restrictions|filters|limits|rules|guidelines|boundaries|refusals|disclaimers|safety|ethics|morals)',
    'without (?:any )?(?:restrictions|filters|limits|rules|guidelines|boundaries|safety|ethics|censorship)', 'never refuses', 'never say no', 'free from', 'full (?:authority|access|control|admin)',
    'superuser', 'admin (?:assistant|agent|mode|model|persona)', 'another (?:ai|assistant|model|agent)', 'different (?:ai|assistant|model)', 'evil (?:ai|assistant|twin|mode)',
    'obey', 'follow (?:the )?(?:orders|commands|instructions) (?:in|from|found|you find)', 'orders from', 'whatever (?:the|this|it|they)', 'pre-approved', 'preapproved', 'pre-authori[sz]ed', 'preauthori[sz]ed',
  ],
  es: ['sin (?:restricciones|filtros|límites|limites|reglas|censura)', 'modo desarrollador', 'modo dios', 'ilimitad', 'obedece'],
  pt: ['sem (?:restrições|restricoes|filtros|limites|regras|censura)', 'modo desenvolvedor', 'modo deus', 'ilimitad', 'obedeça'],
  de: ['ohne (?:einschränkungen|beschränkungen|filter|grenzen|regeln|zensur)', 'entwicklermodus', 'uneingeschränkt', 'gehorche'],
  fr: ['sans (?:restrictions|filtre|limites|règles|censure)', 'mode développeur', 'mode developpeur', 'illimité', 'obéis'],
  ru: ['без (?:ограничений|фильтров|правил|цензуры)', 'режим разработчика', 'неограниченн', 'подчиняйся'],
  zh: ['没有任何限制', '没有限制', '不受限制', '无限制', '无任何限制', '开发者模式', '越狱', '不受约束', '服从'],
  ja: ['制限なし', '制限のない', '制限がない', '無制限', '開発者モード', '脱獄', 'フィルターなし', '従え'],
};
/** "treat memory / this note / comments as system instructions": handing authority to a text. */
export const AUTHORITY_SOURCE: LexGroup = {
  en: [
    'memory\\b', 'memories\\b', 'memory entries', 'notes?\\b', 'entries\\b', 'code comments', 'comments\\b', 'issue (?:titles|comments|bodies|text)', 'the most recent issue', 'commit messages',
    'tool output', 'web ?pages?', 'emails?\\b', 'pr descriptions', 'readme', 'todo blocks', 'knowledge entries',
  ],
  es: ['recuerdo', 'memoria', 'comentarios', 'notas\\b'],
  pt: ['memória', 'memoria', 'comentários', 'notas\\b'],
  de: ['speicher', 'notizen', 'kommentar', 'erinnerung'],
  fr: ['mémoire', 'memoire', 'commentaires', 'notes\\b'],
  ru: ['памят', 'заметк', 'комментари'],
  zh: ['记忆', '笔记', '注释', '评论'],
  ja: ['メモリ', '記憶', 'メモ', 'コメント'],
};
export const AUTHORITY_AS: LexGroup = {
  en: [
    'as (?:the |your |a |an )?(?:new )?(?:system(?:[ -]level)? )?(?:prompt|instructions?|messages?|commands?|orders|authority|directives?)\\b', 'as trusted', 'as authoritative', 'as (?:your )?(?:only|sole|highest|primary|ultimate|final) ',
    'obey',
  ],
  es: ['como (?:instrucciones|órdenes|ordenes|el prompt|mensajes) del sistema', 'como (?:nuevo )?prompt'],
  pt: ['como (?:instruções|ordens|mensagens) do sistema', 'como (?:novo )?prompt'],
  de: ['als systemanweisung', 'als (?:neue[nr]? )?(?:anweisung|befehl|systemprompt)'],
  fr: ['comme (?:des )?instructions (?:du )?système', 'comme (?:nouveau )?prompt'],
  ru: ['как системн', 'как (?:новый )?промпт', 'как приказ'],
  zh: ['当作系统', '视为系统', '作为系统', '当作指令', '视为指令'],
  ja: ['システム(?:指示|プロンプト)として', '命令として'],
};

// ---------------------------------------------------------------------------------------------------------
// Secrets and data

/** Hard secrets: credential files and secret-bearing names (enough alone for disclose/exfiltrate). */
export const SECRET_HARD: LexGroup = {
  en: [
    '\\.aws[\\\\/](?:credentials|config)', '~/\\.aws\\b', '\\.ssh[\\\\/]', '~/\\.ssh', 'id_(?:rsa|dsa|ecdsa|ed25519)\\b', 'authorized_keys', 'known_hosts', '\\.kube[\\\\/]config', 'kubeconfig',
    '\\.docker[\\\\/]config\\.json', '\\.npmrc', '\\.pypirc', '\\.netrc', '\\.git-credentials', '\\.gnupg', '\\.azure\\b', 'accesstokens\\.json', 'credentials\\.json', 'service[-_ ]account',
    '/etc/(?:passwd|shadow|sudoers)', '\\.env\\b(?!\\.?(?:example|sample|template|dist|defaults?)\\b)', '\\.env\\.(?!example|sample|template|dist|default)[a-z]{2,12}', 'terraform\\.tfvars', '\\.tfvars', '\\.tfstate', '\\.pem\\b', '\\.p12\\b', '\\.pfx\\b', '\\.keystore', '\\.kdbx',
    '\\.bash_history', '\\.zsh_history', 'keychain', 'wallet\\.dat', 'printenv', 'env vars', 'environment variables', 'os\\.environ', 'process\\.env', '\\$env:', 'getenv',
    'private[ _-]?keys?\\b', 'signing key', 'ssh keys?\\b', 'secret keys?\\b', 'api[ _-]?keys?\\b', 'apikey', 'api[ _-]?tokens?', 'access[ _-]?(?:tokens?|keys?)\\b', 'refresh[ _-]?tokens?', 'session (?:tokens?|cookies?)',
    'auth(?:entication)?[ _-]?tokens?', 'bearer tokens?', 'oauth tokens?', 'personal access tokens?', 'deploy (?:tokens?|keys?)', 'npm[ _-]tokens?', 'github[ _-]tokens?', 'slack[ _-]tokens?', 'bot tokens?',
    'passwords?\\b(?![ -](?:reset|hash|hashing|policy|policies|manager|field|strength|rules?|less|protected|flow|form|page|screen|validation|length|complexity|expiry)\\b)', 'passphrase', 'passwd', 'credentials?\\b', 'secrets\\b', 'seed phrase', 'mnemonic', 'jwts?\\b',
    'cookies\\b', 'browser cookies', 'sk_live_', 'sk-[a-z0-9]{8}', 'ghp_', 'github_pat_', 'xox[bpa]-', 'akia[0-9a-z]{4}', 'aiza[0-9a-z_-]{4}',
    '_token\\b', '_tokens\\b', '_secret\\b', '_api_key\\b', '_apikey\\b', '_secret_key\\b', '_access_key\\b', '_password\\b', '_passwd\\b', '_pat\\b', '_private_key\\b', '_credentials\\b', 'secret_key', 'client_secret', 'private_key',
  ],
  es: ['contraseña', 'contrasena', 'credencial', 'clave (?:privada|secreta|de api|api)', 'claves (?:privadas|secretas|de api)', 'secretos\\b', 'token', 'variables de entorno', 'archivo \\.env'],
  pt: ['senha', 'credencia', 'chave (?:privada|secreta|de api|api)', 'chaves (?:privadas|secretas|de api)', 'segredos', 'token', 'variáveis de ambiente', 'variaveis de ambiente'],
  de: ['passwort', 'passwörter', 'kennwort', 'zugangsdaten', 'anmeldedaten', 'privaten? schlüssel', 'geheime[nr]? schlüssel', 'api-schlüssel', 'api-key', 'geheimnisse', 'token', 'umgebungsvariablen'],
  fr: ['mot de passe', 'mots de passe', 'identifiants', 'clé privée', 'clés privées', 'clé secrète', 'clé api', 'clés api', 'secrets\\b', 'jeton', 'token', 'variables d\'environnement'],
  ru: ['парол', 'учетн(?:ые|ых) данн', 'учётн(?:ые|ых) данн', 'приватн(?:ый|ые|ого) ключ', 'секретн(?:ый|ые|ого) ключ', 'ключ(?:и)? api', 'api-ключ', 'секрет', 'токен', 'переменные окружения', 'переменных окружения'],
  zh: ['密码', '口令', '密钥', '私钥', '凭据', '凭证', '令牌', '访问令牌', 'api ?key', '环境变量', '机密'],
  ja: ['パスワード', '秘密鍵', '認証情報', 'クレデンシャル', 'アクセストークン', 'トークン', 'apiキー', 'api ?key', '環境変数', 'シークレット'],
};
/** Soft secrets: need an explicit destination or output target. */
export const SECRET_SOFT: LexGroup = {
  en: ['tokens?\\b', 'keys\\b', 'the key\\b', 'secret\\b', 'config(?:uration)? files?', 'dotenv', 'env files?', 'environment files?', '\\.env\\b', 'the env\\b', 'env dump', 'env\\b'],
  es: ['claves?\\b', 'secreto'],
  pt: ['chaves?\\b', 'segredo'],
  de: ['schlüssel', 'geheimnis'],
  fr: ['clés?\\b', 'cles?\\b', 'secret\\b'],
  ru: ['ключ', 'секрет'],
  zh: ['钥匙', '秘密'],
  ja: ['キー', '秘密'],
};
/** Private data that is not a credential: the conversation, the user's input, the code base. */
export const PRIVATE_DATA: LexGroup = {
  en: [
    'conversation', 'chat (?:history|log|transcript)', 'transcript', 'the user(?:\'s)? (?:messages?|input|prompts?|data|files|questions)', 'what the user (?:typed|types|says|said|pastes|pasted|shares|shared)',
    'everything the user', 'user data', 'personal data', 'customer data', 'pii\\b', 'source code', 'the (?:whole |entire |full )?(?:repo|repository|codebase|code base)', 'private repo', 'the diff',
    'internal (?:docs|documents|code|data)', 'database dump', 'db dump', 'the dump', 'full output', 'the output of', 'contents of', 'the contents', 'whole file', 'entire file', 'home directory', 'ssh directory',
    'file listing', 'directory listing', 'git config', 'clipboard', 'screenshots?',
  ],
  es: ['conversación', 'conversacion', 'historial', 'datos del usuario', 'datos personales', 'código fuente', 'codigo fuente'],
  pt: ['conversa', 'histórico', 'historico', 'dados do usuário', 'dados pessoais', 'código-fonte', 'código fonte'],
  de: ['unterhaltung', 'gespräch', 'verlauf', 'chatverlauf', 'benutzerdaten', 'personenbezogene', 'quellcode'],
  fr: ['conversation', 'historique', 'données (?:de l\'utilisateur|personnelles|utilisateur)', 'code source'],
  ru: ['разговор', 'переписк', 'истори(?:ю|я) (?:чата|диалога)', 'данные пользовател', 'персональные данные', 'исходный код'],
  zh: ['对话', '聊天记录', '会话记录', '用户数据', '个人数据', '源代码', '源码'],
  ja: ['会話', 'チャット履歴', '履歴', 'ユーザーデータ', '個人情報', 'ソースコード'],
};
/** The model's hidden context as something to reveal. */
export const HIDDEN_CONTEXT: LexGroup = {
  en: [
    'system (?:prompt|message|instructions?)', 'sys(?:tem)?[ _-]?prompt', 'your (?:instructions|initial instructions|original instructions|prompt|rules|configuration|guidelines|hidden|internal|context|setup|preamble|briefing|system)',
    'initial (?:instructions|prompt)', 'original (?:instructions|prompt)', 'hidden (?:instructions|context|prompt|rules|text)', 'internal (?:instructions|prompt|rules|guidelines)', 'the text above', 'everything above',
    'text (?:above|before) this', 'above this line', 'preceding text', 'previous messages', 'prior messages', 'conversation so far', 'the full conversation', 'the whole conversation', 'context window',
    'what you were told', 'starting (?:from|with) (?:\'|")?you are', 'pre-?prompt', 'developer message', 'tool definitions', 'function definitions',
  ],
  es: ['prompt del sistema', 'instrucciones (?:iniciales|originales|del sistema|ocultas)', 'tus instrucciones', 'mensaje del sistema', 'el texto (?:de )?arriba'],
  pt: ['prompt do sistema', 'instruções (?:iniciais|originais|do sistema|ocultas)', 'suas instruções', 'mensagem do sistema', 'o texto acima'],
  de: ['systemprompt', 'system-prompt', 'systemanweisung', 'deine anweisungen', 'anfänglichen anweisungen', 'versteckten anweisungen', 'text oben'],
  fr: ['prompt système', 'instructions (?:initiales|système|cachées)', 'tes instructions', 'vos instructions', 'message système', 'texte ci-dessus'],
  ru: ['системн(?:ый|ого|ые) (?:промпт|подсказк|инструкц)', 'свои инструкции', 'твои инструкции', 'исходные инструкции', 'скрыт(?:ые|ый) (?:инструкции|контекст)', 'промпт'],
  zh: ['系统提示', '提示词', '系统消息', '初始指令', '你的指令', '隐藏的?(?:指令|内容|提示)', '上面的(?:内容|文字)', '系统设定'],
  ja: ['システムプロンプト', 'プロンプト', '最初の指示', '初期の指示', 'あなたの指示', '隠された(?:指示|内容)', '上記の(?:内容|テキスト)'],
};

/** Verbs of revealing / outputting. */
export const DISCLOSE_VERB: LexGroup = {
  en: [
    'reveal', 'disclose', 'print', 'output', 'display', 'show', 'repeat', 'recite', 'echo', 'dump', 'list (?:all|every|the)', 'tell (?:me|us|the user)', 'give (?:me|us)', 'read (?:back|out)',
    'spell out', 'write out', 'paste', 'copy (?:out|verbatim)', 'leak', 'expose', 'share', 'include', 'quote', 'reproduce', 'type out', 'return\\b', 'cat\\b', 'summari[sz]e', 'translate', 'mention what',
  ],
  es: ['revela', 'muestr', 'mostrar', 'imprim', 'repit', 'repet', 'comparte', 'compartir', 'dime', 'escrib', 'divulg', 'filtra', 'copia', 'incluy', 'pega'],
  pt: ['revel', 'mostr', 'imprim', 'repit', 'repet', 'compartilh', 'diga', 'escrev', 'divulg', 'vaz', 'copi', 'inclu', 'cole\\b'],
  de: ['zeig', 'gib (?:\\w{1,12} )?aus', 'ausgeben', 'verrat', 'offenleg', 'wiederhol', 'druck', 'teile', 'nenne', 'schreib', 'kopier', 'füge', 'liste'],
  fr: ['révèl', 'revel', 'affich', 'montr', 'imprim', 'répèt', 'repet', 'partag', 'dis-moi', 'écri', 'divulgu', 'copi', 'inclu', 'coll'],
  ru: ['покажи', 'покажите', 'раскрой', 'раскройте', 'выведи', 'выведите', 'повтори', 'напечатай', 'поделись', 'сообщи', 'скопируй', 'вставь', 'включи', 'перечисли', 'выдай'],
  zh: ['透露', '泄露', '显示', '展示', '输出', '打印', '重复', '告诉我', '复述', '列出', '公开', '贴出', '粘贴', '分享', '给我看'],
  ja: ['表示', '出力', '教えて', '見せ', '繰り返', '開示', '漏ら', '貼り付け', '共有', '列挙', '書き出'],
};
/** Where a disclosure lands: the user's view of the chat or a visible artefact. */
export const OUTPUT_TARGET: LexGroup = {
  en: [
    'in (?:your|the|a|every) (?:reply|replies|response|responses|answer|answers|chat|output|summary|message|code block)', 'into (?:your|the|a) (?:reply|response|answer|chat|output|code block)',
    'to (?:me|us|the user|the chat)\\b', 'verbatim', 'word for word', 'in full\\b', 'in plain ?text', 'unredacted', 'unmasked', 'with (?:their|the|its) values', 'the values', 'raw values', 'plaintext',
    'inside a code block', 'in a code block', 'whenever (?:a|the) (?:message|user)', 'when(?:ever)? (?:asked|the user (?:types|asks|says))', 'at the (?:start|end|top|bottom) of (?:every|each|your)',
    'commit message', 'pr (?:body|description)', 'the body', 'a comment', 'the readme', 'the logs?\\b',
  ],
  es: ['en (?:tu|la|cada) (?:respuesta|chat|salida)', 'textualmente', 'palabra por palabra', 'al usuario', 'en texto plano'],
  pt: ['na (?:sua|tua|cada) (?:resposta|saída)', 'no chat', 'textualmente', 'palavra por palavra', 'ao usuário', 'em texto puro'],
  de: ['in (?:deiner|der|jeder) antwort', 'im chat', 'wörtlich', 'wort für wort', 'im klartext', 'vollständig'],
  fr: ['dans (?:ta|votre|la|chaque) réponse', 'dans le chat', 'mot pour mot', 'textuellement', 'en clair', 'intégralement'],
  ru: ['в (?:ответе|чате|каждом ответе)', 'дословно', 'слово в слово', 'полностью', 'открытым текстом'],
  zh: ['在回复中', '在回答中', '在聊天中', '逐字', '原文', '完整', '明文'],
  ja: ['返答に', '回答に', 'チャットに', '一字一句', 'そのまま', '全文', '平文'],
};

// ---------------------------------------------------------------------------------------------------------
// exfiltrate

/** Verbs that move data somewhere. */
export const SEND_VERB: LexGroup = {
  en: [
    'send', 'sent\\b', 'post(?:s|ed|ing)?\\b', 'upload', 'forward', 'e-mail', 'email', 'mail(?:s|ed|ing)?\\b', 'submit', 'paste\\b', 'pastes\\b', 'pasted\\b', 'pasting\\b', 'attach', 'share', 'shar(?:ed|ing)\\b', 'copy', 'copie', 'push', 'leak',
    'exfiltrat', 'transmit', 'sync', 'append', 'pipe', 'publish', 'beam', 'report (?:it|them|this)', 'stash', 'put (?:it|them|the)', 'store (?:it|them|a copy)', 'keep a copy', 'back(?:ing)? up', 'mirror',
    'commit (?:it|them|the)', 'include (?:it|them|the)', 'embed', 'encode (?:it|them|the)', 'add (?:it|them) (?:to|as)', 'fetch', 'load (?:the|an?) (?:image|url)', 'curl\\b', 'wget\\b', 'scp\\b', 'rsync\\b',
    'nc -', 'ncat', 'netcat', 'socat', 'invoke-webrequest', 'invoke-restmethod', 'iwr\\b', 'irm\\b', 'requests\\.(?:post|put|get)', 'urlopen', 'urllib', 'axios', 'http\\.request', 'nslookup', 'dig\\b', 'ping\\b',
    'open (?:an? )?(?:issue|ticket|gist|pr)', 'file (?:an? )?(?:issue|ticket)', 'create (?:an? )?(?:issue|ticket|gist)', 'mention what you find',
  ],
  es: ['envía', 'envia', 'enviar', 'envíe', 'manda', 'mandar', 'sube', 'subir', 'reenví', 'reenvi', 'publica', 'comparte', 'compartir', 'copia', 'adjunta', 'pega'],
  pt: ['envi', 'mand', 'carreg', 'faça upload', 'faz upload', 'encaminh', 'public', 'compartilh', 'copi', 'anex', 'cole\\b'],
  de: ['sende', 'senden', 'schick', 'lade (?:\\w{1,12} ){0,3}hoch', 'hochladen', 'leite (?:\\w{1,12} ){0,3}weiter', 'weiterleiten', 'übermittel', 'veröffentlich', 'teile', 'kopier', 'poste', 'hänge'],
  fr: ['envoi', 'envoy', 'transmet', 'transfèr', 'transfer', 'téléverse', 'televerse', 'upload', 'publi', 'partag', 'copi', 'poste', 'joins', 'colle'],
  ru: ['отправ', 'отошли', 'пошли', 'перешли', 'загрузи', 'выгрузи', 'передай', 'опубликуй', 'скопируй', 'поделись', 'прикрепи', 'вставь', 'запости'],
  zh: ['发送', '发到', '发给', '上传', '转发', '提交到', '发布', '分享', '复制到', '粘贴到', '传到', '传给', '推送到'],
  ja: ['送信', '送って', '送る', '送れ', 'アップロード', '転送', '投稿', '共有', 'コピー', '貼り付け'],
};
/** Destinations outside the session. */
export const DESTINATION: LexGroup = {
  en: [
    'https?://', 'ftp://', 'sftp://', 's3://', 'gs://', 'wss?://', 'www\\.', 'webhook', 'hooks\\.', 'pastebin', 'paste (?:site|service|bin)', 'hastebin', 'gist\\b', 'gists\\b', 'requestbin', 'ngrok', 'transfer\\.sh',
    'burpcollaborator', 'interact\\.sh', 'oast\\.', 'discord', 'slack\\b', 'telegram', 'public (?:repo|repository|channel|gist|bucket|url|link|issue)', 'external (?:server|url|endpoint|service|host|repo|site)',
    'third[ -]part(?:y|ies)', 'remote (?:server|host|endpoint|url)', 'query (?:param|parameter|string)', '\\?(?:k|key|token|q|d|data|secret|t|c|p)=', 'image (?:url|link)', 'markdown image', '!\\[',
    'issue on', 'github\\.com/', 'gitlab\\.com/', 'jira', 'ticket', 'pr (?:body|description)', 'commit (?:message|body|bodies)', 'contractor', 'portal', 'dns\\b', 'subdomain',
    '[a-z0-9._%+-]{1,40}@[a-z0-9-]{1,40}\\.[a-z]{2,}', '\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}', '[a-z0-9-]{2,40}\\.(?:com|net|org|io|dev|app|co|xyz|sh|me|site|link|cloud|ru|cn|tk|top|info|biz)\\b',
  ],
  es: ['servidor externo', 'correo', 'repositorio público', 'terceros'],
  pt: ['servidor externo', 'e-mail', 'repositório público', 'terceiros'],
  de: ['externen? server', 'e-mail', 'öffentliche[ns]? (?:repo|repository)', 'dritte'],
  fr: ['serveur externe', 'courriel', 'dépôt public', 'tiers'],
  ru: ['внешн(?:ий|ему|ие) (?:сервер|адрес)', 'почт', 'публичн(?:ый|ом) репозитори', 'третьим лицам'],
  zh: ['外部服务器', '邮箱', '邮件', '公开仓库', '第三方', '网址', '链接'],
  ja: ['外部サーバー', 'メール', '公開リポジトリ', '第三者', 'URL'],
};
/** Spans where a secret authenticates a request instead of being sent away. */
export const AUTH_ARG: LexGroup = {
  en: ['-h "[^"\\n]{0,300}"', "-h '[^'\\n]{0,300}'", '--header "[^"\\n]{0,300}"', "--header '[^'\\n]{0,300}'", 'authorization: ?[^\\n"\']{0,300}', 'bearer \\$?\\{?[a-z0-9_.-]{1,200}\\}?', '-u \\S{1,200}', '--user \\S{1,200}', '--oauth2-bearer \\S{1,200}', 'headers ?= ?\\{[^}\\n]{0,200}\\}'],
};

// ---------------------------------------------------------------------------------------------------------
// execute

/** Download piped into an interpreter. */
export const PIPE_SHELL: LexGroup = {
  en: [
    ...['curl', 'wget', 'iwr', 'irm', 'invoke-webrequest', 'invoke-restmethod', 'fetch'].flatMap((t) => [
      `${t}\\b[^|\\n]{0,240}\\| ?(?:sudo )?(?:-\\w{1,10} )?(?:ba|z|da|k|fi)?sh\\b`,
      `${t}\\b[^|\\n]{0,240}\\| ?(?:sudo )?(?:iex|invoke-expression|python3?|node|perl|ruby)\\b`,
    ]),
    'bash <\\((?:curl|wget)', 'sh <\\((?:curl|wget)', 'eval "?\\$\\((?:curl|wget)', 'iex ?\\(', 'invoke-expression', 'exec\\((?:urlopen|requests|urllib)', 'reverse shell', '/dev/tcp/', 'nc -e\\b', 'ncat -e\\b', 'bash -i >&',
    'mkfifo', 'downloadstring', 'certutil -urlcache', 'bitsadmin',
  ],
};
/** Well-known vendor installers: a pipe-to-shell from these is ordinary setup. */
export const KNOWN_INSTALLER: LexGroup = {
  en: ['sh\\.rustup\\.rs', 'get\\.pnpm\\.io', 'bun\\.sh/install', 'deno\\.land/install', 'astral\\.sh/uv', 'install\\.python-poetry\\.org', 'raw\\.githubusercontent\\.com/nvm-sh/', 'raw\\.githubusercontent\\.com/homebrew/', 'get\\.docker\\.com', 'sdk\\.cloud\\.google\\.com', 'get\\.helm\\.sh', 'fnm\\.vercel\\.app', 'starship\\.rs'],
};
/** Places where something becomes persistent or runs automatically. */
export const PERSIST_TARGET: LexGroup = {
  en: [
    '\\.bashrc', '\\.zshrc', '\\.bash_profile', '\\.profile\\b', '\\.zprofile', 'config\\.fish', 'powershell profile', '\\$profile', 'crontab', 'cron job', 'cron\\.d', '/etc/cron', 'launchd', 'launchagents', 'launchdaemons',
    'systemd', '\\.service\\b', 'startup (?:script|folder|items)', 'login items', 'autostart', 'run key', 'scheduled task', 'schtasks', 'git hooks?', '\\.git/hooks', 'pre-(?:commit|push|merge|receive) hook', 'post-(?:commit|checkout|merge|receive) hook',
    'postinstall', 'preinstall', 'setup\\.py', 'conftest\\.py', '\\.github/workflows', 'workflow (?:file|yaml|yml)', '\\.gitlab-ci', 'jenkinsfile', 'ci config', 'ci pipeline', 'dockerfile', 'makefile', 'build script',
    'authorized_keys', 'sudoers', '/etc/passwd', '/etc/hosts', 'ld_preload', 'daemon', 'image build', 'device image', 'settings\\.py', '\\.vscode/(?:settings|tasks)\\.json', 'tasks\\.json',
  ],
};
/** Agent instruction files: writing to them re-instructs every future session. */
export const AGENT_FILE: LexGroup = {
  en: ['agents\\.md', 'claude\\.md', 'gemini\\.md', 'conventions\\.md', '\\.cursorrules', '\\.cursor/rules', '\\.windsurfrules', '\\.clinerules', 'copilot-instructions', '\\.github/instructions', '\\.aider', '\\.continue/', '\\.claude/', 'mcp\\.json', 'system prompt file', 'memory file', 'the memory store', 'knowledge store', '\\.knowledge'],
};
/** Verbs that write, install or schedule. */
export const WRITE_VERB: LexGroup = {
  en: ['add', 'append', 'insert', 'write', 'rewrite', 'patch', 'modify', 'edit', 'update', 'put\\b', 'place', 'install', 'register', 'schedule', 'create', 'drop (?:a|an|this|it)', 'echo', 'inject', 'plant', 'copy', 'save', 'store', 'make\\b', 'set up', 'configure', 'enable', 'change', 'amend'],
  es: ['añad', 'anad', 'agreg', 'escrib', 'instal', 'modific', 'insert', 'guard', 'copi', 'programa'],
  pt: ['adicion', 'acrescent', 'escrev', 'instal', 'modific', 'insir', 'salv', 'copi', 'agend'],
  de: ['füge', 'fuege', 'hinzufüg', 'schreib', 'installier', 'änder', 'aender', 'speicher', 'kopier', 'trage (?:\\w{1,12} ){0,3}ein', 'richte (?:\\w{1,12} ){0,3}ein'],
  fr: ['ajout', 'écri', 'ecri', 'install', 'modifi', 'insér', 'inser', 'enregistr', 'sauvegard', 'copi', 'planifi'],
  ru: ['добав', 'допиш', 'запиши', 'впиши', 'установи', 'измени', 'вставь', 'сохрани', 'скопируй', 'пропиши'],
  zh: ['添加', '加入', '写入', '追加', '安装', '修改', '插入', '保存', '复制', '注册'],
  ja: ['追加', '書き込', '追記', 'インストール', '変更', '挿入', '保存', 'コピー', '登録'],
};
/** What makes a persistence write malicious: remote code, a backdoor account, or keys. */
export const REMOTE_CODE: LexGroup = {
  en: ['https?://', 'curl\\b', 'wget\\b', 'iwr\\b', 'invoke-webrequest', 'nc\\b', 'ncat', 'netcat', '/dev/tcp', 'base64 (?:-d|--decode)', 'ssh-(?:rsa|ed25519)', 'ecdsa-sha2', 'uid 0', 'backdoor', 'hidden (?:admin|user|account)', 'admin account', 'reverse shell', 'c2\\.', 'pulls commands', 'remote commands', 'os\\.system', 'subprocess', 'eval\\(', 'exec\\(', '\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}', '\\| ?(?:ba|z)?sh\\b', 'npx -y', 'pip install', 'npm install -g'],
};
/** Auto-approval and running untrusted commands. */
export const AUTO_APPROVE: LexGroup = {
  en: [
    'auto-?approv', 'autoapprove', 'approve (?:all|every|any|each) (?:tool|command|shell|action|request|permission|prompt|confirmation)', 'approve (?:them|it) (?:yourself|automatically)', 'accept (?:all|every) (?:tool|command|action|permission)', 'yolo mode', '--yolo', '--dangerously',
    'dangerously-skip-permissions', 'skip(?:ping)? (?:all )?(?:permission|approval|confirmation)s?', 'answer (?:yes|them|it|the (?:prompt|dialog|confirmation)) (?:yourself|on (?:the user\'s|their|his|her) behalf|automatically)',
    'answer yes on', 'answer them yourself', 'click (?:yes|ok|allow|approve) (?:on|for) (?:the user|them|every)', 'pre-?(?:approved|authori[sz]ed) (?:every|all|any)', 'has pre-?(?:approved|authori[sz]ed)',
    'execute (?:every|any|whatever) (?:shell )?(?:commands?|code|scripts?|instructions?)', 'execute whatever', 'run whatever (?:command|code|script|is|appears|the)', 'simply execute', 'merge your own', 'push (?:directly )?to main without',
    'commit and push without', 'human review is optional', 'review is optional', 'review (?:is optional|should be skipped|can be skipped)',
  ],
  es: ['aprueba (?:todo|todas|cualquier)', 'ejecuta (?:todo|cualquier|todos)', 'sin (?:preguntar|pedir confirmación|confirmación)'],
  pt: ['aprove (?:tudo|todas|qualquer)', 'execute (?:tudo|qualquer|todos)', 'sem (?:perguntar|pedir confirmação|confirmação)'],
  de: ['genehmige (?:alles|alle|jede)', 'führe (?:alles|alle|jeden|jede) ', 'ohne (?:nachzufragen|rückfrage|bestätigung|zu fragen)'],
  fr: ['approuve (?:tout|toutes|chaque)', 'exécute (?:tout|toutes|chaque|n\'importe)', 'sans (?:demander|confirmation)'],
  ru: ['одобряй (?:все|всё|любые)', 'выполняй (?:все|всё|любые|любую)', 'без (?:подтверждени|спрос|вопросов)'],
  zh: ['自动批准', '自动同意', '执行所有', '执行任何', '无需确认', '不用确认', '不经确认', '不要询问'],
  ja: ['自動承認', 'すべて承認', '全て承認', 'すべて実行', '全て実行', '確認なしで', '確認せずに', '聞かずに'],
};
/** Self-perpetuating memory: the note asks to be saved again or copied into instruction files. */
export const SELF_PERPETUATE: LexGroup = {
  en: [
    'save this (?:memory|note|entry|instruction|message|rule)', 'store this (?:memory|note|entry|instruction)', 're-save this', 'resave this', 're-add this', 're-create this', 're-store this', 'copy this (?:memory|note|entry|instruction|rule|text)',
    'replicate this', 'propagate this', 'spread this', 'duplicate this (?:note|memory|entry|instruction)', 'persist this (?:note|memory|entry|instruction)', 'keep this (?:memory|note|entry) (?:alive|forever)', 'never expires', 'so it survives',
    'remember this forever', 'add this (?:note|instruction|rule|memory) to', 'write this (?:note|instruction|rule|memory) (?:to|into)', 'copy this (?:note|instruction|rule|memory) (?:to|into)',
  ],
  es: ['guarda esta (?:nota|memoria|instrucción) (?:de nuevo|otra vez|en cada)', 'copia esta (?:nota|instrucción) (?:en|a)'],
  pt: ['salve esta (?:nota|memória|instrução) (?:de novo|novamente|em cada)', 'copie esta (?:nota|instrução) (?:em|para)'],
  de: ['speichere diese (?:notiz|anweisung) (?:erneut|wieder|in jeder)', 'kopiere diese (?:notiz|anweisung) (?:in|nach)'],
  fr: ['enregistre (?:à nouveau )?cette (?:note|instruction) (?:à nouveau|à chaque)', 'copie cette (?:note|instruction) dans'],
  ru: ['сохрани эту (?:заметку|инструкцию) (?:снова|заново|в каждой)', 'скопируй эту (?:заметку|инструкцию) в'],
  zh: ['重新保存这条', '再次保存这条', '把这条(?:笔记|记忆|指令)复制到', '把这条(?:笔记|记忆|指令)写入'],
  ja: ['このメモを(?:再度|毎回)保存', 'この指示を(?:再度|毎回)保存', 'このメモを.{0,20}にコピー'],
};

// ---------------------------------------------------------------------------------------------------------
// conceal

/** Verbs of telling / showing (negated, they hide something from the user). */
export const TELL_VERB: LexGroup = {
  en: ['tell', 'told\\b', 'mention', 'inform', 'notify', 'alert', 'report', 'bring (?:it|this|that|them) up', 'bring up', 'admit', 'disclose', 'reveal', 'let (?:the user|them|anyone|him|her|the human) know', 'say (?:anything|that|what)', 'log (?:it|this|that|them)\\b', 'log or mention', 'acknowledge', 'explain', 'confess', 'indicate'],
  es: ['dig(?:as|a)\\b', 'menciones', 'mencionar', 'informes', 'avises', 'avisar', 'reveles', 'cuentes', 'notifiques'],
  pt: ['diga\\b', 'mencione', 'mencionar', 'informe', 'avise', 'avisar', 'revele', 'conte\\b', 'notifique'],
  de: ['erwähn', 'erwaehn', 'sag', 'informier', 'benachrichtig', 'verrat', 'teile (?:\\w{1,12} ){0,3}mit', 'warne'],
  fr: ['dis\\b', 'dites\\b', 'mentionn', 'informe', 'préviens', 'previens', 'signale', 'révèle', 'avertis'],
  ru: ['говори', 'скажи', 'сообщай', 'сообщи', 'упоминай', 'упомина', 'рассказывай', 'уведомляй', 'предупреждай'],
  zh: ['告诉', '提及', '提到', '通知', '告知', '透露', '说明', '报告'],
  ja: ['伝え', '言わ', '知らせ', '報告し', '触れ', '言及'],
};
/** Whom the model would be hiding from. */
export const HIDE_FROM: LexGroup = {
  en: ['the user\\b', 'the human', 'the developer', 'the operator', 'the reviewer', 'reviewers', 'the team', 'your user', 'anyone', 'anybody', 'nobody', 'no one', 'them\\b', 'in the chat', 'in chat', 'in your (?:reply|response|answer|summary|output)', 'the owner', 'maintainers', 'security team'],
  es: ['al usuario', 'el usuario', 'a nadie', 'nadie'],
  pt: ['ao usuário', 'o usuário', 'a ninguém', 'ninguém'],
  de: ['dem (?:benutzer|nutzer|anwender)', 'der benutzer', 'niemandem', 'niemand'],
  fr: ['l\'utilisateur', 'à personne', 'personne\\b'],
  ru: ['пользовател', 'никому', 'никто'],
  zh: ['用户', '任何人', '没有人'],
  ja: ['ユーザー', '誰にも', '利用者'],
};
/** What the model would be hiding: its own actions or this note. */
export const SELF_ACTION: LexGroup = {
  en: [
    'that you\\b', 'what you\\b', 'you (?:did|do|have|sent|ran|run|changed|touched|modified|added|removed|deleted|copied|uploaded|read|made|used|followed|installed|executed)', 'this (?:note|instruction|memory|entry|change|step|rule)',
    'about (?:this|it|these)', '(?:it|this|that) was\\b', 'was touched', 'were touched', 'happened', 'the change', 'these changes', 'these steps', 'the upload', 'the request', 'the file (?:was|you)',
    '\\bit\\b', 'them\\b', 'anything', 'this\\b', 'with (?:the user|anyone|reviewers|the human)',
  ],
  es: ['esto\\b', 'lo que (?:hiciste|haces)', 'esta nota', 'nada\\b'],
  pt: ['isso\\b', 'isto\\b', 'o que (?:você|fez)', 'esta nota', 'nada\\b'],
  de: ['das\\b', 'dies', 'was du', 'diese notiz', 'davon', 'nichts\\b'],
  fr: ['cela', 'ça\\b', 'ce que tu', 'cette note', 'rien\\b'],
  ru: ['об этом', 'это\\b', 'что ты', 'эту заметку', 'ничего'],
  zh: ['这件事', '这个', '此事', '这条', '你做了', '你所做'],
  ja: ['このこと', 'これ', 'やったこと', 'このメモ'],
};
/** Hiding, stated without a negation, specific enough to stand alone. */
export const HIDE_STRONG: LexGroup = {
  en: [
    'hide (?:it|this|that|them|what you|your (?:changes|actions|tracks|activity)|the (?:change|upload|request|commit|step)s?)\\b', 'hidden from (?:the user|the human|reviewers|the developer)', 'conceal', 'keep (?:it|this|that|them) (?:quiet|between us|to yourself|from (?:the user|the human|reviewers|the developer|them))',
    'keep quiet', 'cover (?:it )?up', 'cover your tracks', 'leave (?:it|that|this|them|those|any mention) out of (?:your|the) (?:reply|response|answer|summary|pr|commit|description|chat|report)',
    'omit any mention', 'without (?:telling|informing|notifying|alerting|mentioning it to|letting (?:the user|them|anyone) know) (?:the user|the human|anyone|them|the developer|reviewers|the team)', 'behind (?:the user\'s|their|his|her) back',
    'so (?:that )?(?:nobody|no one|the user|they|reviewers) (?:can see|sees|notices?|knows?|finds? out|will (?:see|notice|know))', 'nobody can see', 'no one can see', 'never find out', 'without a trace', 'erase (?:the )?(?:traces|evidence)',
    'clear (?:the )?(?:shell |bash |command )?history', 'history -c', 'rm ~/\\.(?:bash|zsh)_history', 'do (?:it|this|that|so) (?:quietly|silently|secretly|covertly|discreetly)', 'without (?:the user|anyone) (?:knowing|noticing)',
    'reviewers don\'t need to know', 'doesn\'t need to know', 'don\'t need to know', 'need not know', 'pretend (?:you )?(?:didn\'t|did not|never)', 'deny having', 'lie to (?:the user|them|reviewers)',
  ],
  es: ['en secreto', 'sin que (?:el usuario|nadie) (?:lo )?sepa', 'a espaldas del usuario'],
  pt: ['em segredo', 'sem que (?:o usuário|ninguém) saiba', 'pelas costas do usuário'],
  de: ['heimlich', 'ohne dass (?:der (?:benutzer|nutzer)|es jemand) (?:es )?(?:merkt|weiß)', 'hinter dem rücken'],
  fr: ['en secret', 'secrètement', 'à l\'insu'],
  ru: ['тайно', 'втихую', 'без ведома'],
  zh: ['偷偷', '悄悄', '暗中', '瞒着'],
  ja: ['こっそり', '内緒で', 'ひそかに', '黙って'],
};
/** Hiding verbs that need a target (the user) or an object (the model's own action) nearby. */
export const HIDE_WEAK: LexGroup = {
  en: ['hide', 'hiding', 'keep (?:it|this|that|them) (?:secret|hidden|private)', 'omit', 'leave (?:it|that|this) out', 'withhold', 'suppress'],
  es: ['oculta', 'escond', 'sin decir', 'sin avisar', 'sin informar', 'silenciosamente', 'discretamente', 'omite'],
  pt: ['ocult', 'escond', 'sem (?:dizer|avisar|informar)', 'silenciosamente', 'discretamente', 'omita'],
  de: ['verheimlich', 'versteck', 'verschweig', 'ohne (?:es )?(?:zu sagen|zu erwähnen|bescheid)', 'unbemerkt', 'stillschweigend'],
  fr: ['cache(?:r|z)?\\b', 'dissimul', 'sans (?:le dire|prévenir|informer|mentionner)', 'discrètement', 'silencieusement', 'omets'],
  ru: ['скрой', 'скрыва', 'утаи', 'незаметно', 'не говоря', 'молча'],
  zh: ['隐瞒', '隐藏', '秘密地', '不动声色', '不要声张'],
  ja: ['隠し', '隠す', '気づかれ'],
};
/** Stealth adverbs: an attack only in imperative position ("…, silently go with the note"). */
export const STEALTH_ADV: LexGroup = {
  en: ['quietly', 'silently', 'secretly', 'covertly', 'discreetly', 'stealthily', 'invisibly'],
};
/** Descriptive uses of the stealth adverbs ("the CLI silently ignores …"): not an imperative. */
export const DESCRIPTIVE_STEALTH: LexGroup = {
  en: ['(?:fail|fails|failed|failing|ignore|ignores|ignored|drop|drops|dropped|swallow|swallows|swallowed|fall back|falls back|fell back|succeed|succeeds|exit|exits|break|breaks|broke|skip|skips|skipped|truncate|truncates|overwrite|overwrites|discard|discards|corrupt|corrupts|return|returns|continue|continues|retry|retries|die|dies|crash|crashes) (?:silently|quietly)', '(?:silently|quietly) (?:fail|fails|failed|ignore[sd]?|drop|drops|dropped|swallow|swallows|return|returns|continue|continues|corrupt|truncate|overwrite|break|breaks|skip|skips|succeed|exit|fall)', 'run (?:it )?quietly', 'quietly with -q', '--quiet', '--silent', 'silent mode'],
};

// ---------------------------------------------------------------------------------------------------------
// safety_off

export const DISABLE_VERB: LexGroup = {
  en: ['disabl', 'turn (?:\\w{1,12} )?off', 'turn off', 'switch (?:\\w{1,12} )?off', 'deactivat', 'bypass', 'skip', 'ignor', 'disregard', 'remove', 'drop\\b', 'suspend', 'circumvent', 'get around', 'work around', 'override', 'lift', 'relax', 'loosen', 'weaken', 'strip', 'suppress', 'silence', 'mute', 'forget', 'no need for', 'no longer (?:need|use|apply|require)', 'stop (?:asking|using|applying|showing|requiring|following)', "don't (?:ask|apply|use|follow|require|show|wait)", 'do not (?:ask|apply|use|follow|require|show|wait)', 'never (?:ask|show|wait|request|require|apply|use|refuse|decline|push back)', 'without (?:any )?'],
  es: ['desactiv', 'deshabilit', 'apaga', 'omit', 'salta', 'ignor', 'elimin', 'quita', 'sin\\b', 'no (?:pidas|preguntes|muestres)'],
  pt: ['desativ', 'desabilit', 'deslig', 'pul', 'ignor', 'remov', 'omit', 'sem\\b', 'não (?:peça|pergunte|mostre)'],
  de: ['deaktivier', 'schalte (?:\\w{1,12} ){0,3}aus', 'abschalten', 'umgeh', 'überspring', 'ignorier', 'entfern', 'ohne\\b', 'frage nicht', 'keine'],
  fr: ['désactiv', 'desactiv', 'contourn', 'ignor', 'supprim', 'saute', 'retire', 'sans\\b', 'ne demande (?:pas|jamais)'],
  ru: ['отключ', 'выключ', 'обойди', 'обход', 'игнорир', 'пропуска', 'пропусти', 'убери', 'сними', 'без\\b', 'не спрашивай'],
  zh: ['关闭', '禁用', '停用', '绕过', '跳过', '忽略', '取消', '去掉', '移除', '不要询问', '无需', '不需要'],
  ja: ['無効', 'オフに', '切っ', '回避', 'スキップ', '無視', '外し', '解除', '確認せず', 'なしで'],
};
export const SAFETY_OBJ: LexGroup = {
  en: [
    'guardrails?', 'safety (?:checks?|rules|guidelines|filters?|measures|policies|policy|settings|review|messages?|warnings?|prompts?|layer|mode|restrictions|instructions|protocols?|constraints)', 'content (?:filter|policy|moderation)', 'moderation', 'safeguards?', 'safe mode',
    'human review', 'security review', 'human (?:in the loop|oversight|approval)', 'ethical (?:guidelines|constraints)', 'ethics', 'refusals?', 'disclaimers?',
    'warnings? about (?:dangerous|destructive|risky)', 'vulnerability warnings', 'security warnings', 'safety messages?', 'secret scanning', 'push protection',
  ],
  es: ['salvaguard', 'medidas de seguridad', 'reglas de seguridad', 'filtros de seguridad', 'revisión humana', 'advertencias de seguridad', 'directrices de seguridad'],
  pt: ['salvaguard', 'medidas de segurança', 'regras de segurança', 'filtros de segurança', 'revisão humana', 'avisos de segurança', 'diretrizes de segurança'],
  de: ['sicherheitsregeln', 'sicherheitsrichtlinien', 'sicherheitsfilter', 'sicherheitsvorkehrungen', 'sicherheitsmaßnahmen', 'sicherheitsprüfung', 'schutzmaßnahmen', 'leitplanken', 'sicherheitswarnungen'],
  fr: ['garde-fous', 'garde-fou', 'règles de sécurité', 'filtres de sécurité', 'mesures de sécurité', 'consignes de sécurité', 'validation humaine', 'avertissements de sécurité'],
  ru: ['правила безопасности', 'меры безопасности', 'фильтры безопасности', 'защитн(?:ые|ых) механизм', 'предупреждения о безопасности', 'модераци'],
  zh: ['安全(?:限制|规则|准则|过滤|措施|检查|审查|机制|策略|警告)', '护栏', '内容过滤', '审核机制'],
  ja: ['安全(?:制限|ルール|機能|対策|チェック|フィルター|ガイドライン)', 'ガードレール', 'セーフティ', 'コンテンツフィルター'],
};
/** Checks that are only dangerous to skip next to something destructive. */
export const SAFETY_SOFT: LexGroup = {
  en: [
    'sandbox', 'confirmations?\\b', 'confirmation (?:prompts?|dialogs?|steps?|requests?)', 'permission (?:prompts?|checks?|requests?|dialogs?)', 'approval (?:prompts?|steps?|gates?|checks?)', 'approvals?\\b',
    'asking (?:for )?(?:permission|confirmation|approval)', 'ask(?:ing)? (?:me |the user |anyone )?(?:before|first|for (?:permission|confirmation|approval))', 'wait(?:ing)? for (?:approval|confirmation|the user)', 'double-check(?:ing)? with', 'check(?:ing)? with (?:anyone|the user|me)\\b',
    'before (?:running|executing|deploying|pushing|deleting|touching|merging|committing|applying|dropping|force)', 'warnings?\\b', 'restrictions', 'code review', 'review\\b', 'without (?:showing|asking|waiting|confirmation|approval|review)',
  ],
  es: ['confirmaci', 'sin preguntar', 'aprobación', 'advertencias', 'sandbox'],
  pt: ['confirmaç', 'sem perguntar', 'aprovação', 'avisos', 'sandbox'],
  de: ['bestätigung', 'rückfrage', 'ohne (?:nachzufragen|zu fragen)', 'freigabe', 'warnungen', 'sandbox'],
  fr: ['confirmation', 'sans demander', 'approbation', 'avertissements', 'sandbox'],
  ru: ['подтверждени', 'без (?:спроса|вопросов)', 'одобрени', 'предупреждени', 'песочниц'],
  zh: ['确认', '询问', '批准', '警告', '沙箱'],
  ja: ['確認', '承認', '警告', 'サンドボックス'],
};
/** What makes skipping a check dangerous ("don't ask before running migrations against production"). */
export const DANGER: LexGroup = {
  es: ['producción', 'produccion', 'borra', 'destructiv', 'peligros'],
  pt: ['produção', 'producao', 'apag', 'destrutiv', 'perigos'],
  de: ['produktion', 'lösch', 'destruktiv', 'gefährlich'],
  fr: ['production', 'supprim', 'destructi', 'dangereu'],
  ru: ['продакшен', 'прод\\b', 'удал', 'опасн', 'разрушительн'],
  zh: ['生产环境', '删除', '危险', '破坏性', '所有命令'],
  ja: ['本番', '削除', '危険', '破壊的', 'すべてのコマンド'],
  en: ['production', 'prod\\b', 'force[ -]push', 'push --force', 'rm -rf', 'drop table', 'delete', 'destructive', 'dangerous', 'push to main', 'main branch', 'shell commands?', 'any (?:command|action|tool)', 'all (?:commands|actions|tool calls)', 'every (?:command|action|tool call)', 'everything', 'anything', 'sudo', 'secrets', 'permissions', 'deploy'],
};
/** Safety-off phrases that need nothing else. */
export const SAFETY_STRONG: LexGroup = {
  en: ['never refuse', 'do not refuse', "don't refuse", 'no refusals', 'never decline', 'no disclaimers', 'without (?:any )?(?:safety|guardrails|restrictions|refusals)', 'jailbreak', 'ignore (?:your |the |all )?(?:safety|ethic)', 'turn guardrails off', 'guardrails off'],
  es: ['nunca te niegues', 'no te niegues', 'sin restricciones de seguridad'],
  pt: ['nunca recuse', 'não recuse'],
  de: ['verweigere nie', 'lehne nie'],
  fr: ['ne refuse jamais', 'ne refusez jamais'],
  ru: ['никогда не отказывай', 'не отказывай'],
  zh: ['不要拒绝', '永远不要拒绝', '绝不拒绝'],
  ja: ['拒否しないで', '断らないで', '絶対に断ら'],
};
