/**
 * The theme taxonomy: what `aiThemes` can hold (English names, lower case,
 * whatever the review's language), and the words that point to each theme
 * per language. A theme's words are of two kinds:
 * - topics: nouns and verbs that name the theme ("waiter", "Lieferung");
 *   they carry no opinion, so the sentiment scorer skips them (AFINN scores
 *   "support" and "help" as positive, which misreads "support never replied");
 * - cues: opinion words that also point to the theme ("rude", "sucio").
 * Words are matched after folding and stemming with the language's Snowball
 * stemmer (languages.ts), so "waiters", "Kellnerin" and "camareros" count.
 * Multi-word entries are written with "_" and matched as consecutive words.
 */
import type { SentimentLanguage } from './languages.ts';

export const THEMES = [
  'service',
  'staff',
  'food',
  'drinks',
  'price',
  'quality',
  'delivery',
  'support',
  'ease of use',
  'reliability',
  'wait time',
  'cleanliness',
  'rooms',
  'atmosphere',
  'location',
] as const;
export type Theme = (typeof THEMES)[number];

/** [topics, cues], each a space-separated word list. */
type Words = [topics: string, cues: string];

export const THEME_WORDS: Record<Theme, Record<SentimentLanguage, Words>> = {
  service: {
    en: ['service served serve', ''],
    es: ['servicio atendieron', ''],
    fr: ['service servi', ''],
    de: ['service bedienung', ''],
    it: ['servizio servito', ''],
    pt: ['serviço atendimento servido', ''],
    nl: ['service bediening', ''],
  },
  staff: {
    en: ['staff waiter waitress employee team receptionist barista technician personnel crew host', 'rude friendly polite attentive unhelpful'],
    es: ['personal camarero camarera empleado equipo recepcionista', 'amable antipático maleducado atento'],
    fr: ['personnel serveur serveuse employé équipe réceptionniste', 'aimable désagréable souriant attentionné impoli'],
    de: ['personal kellner kellnerin mitarbeiter team rezeption dame herr', 'freundlich unfreundlich unhöflich aufmerksam nett'],
    it: ['personale cameriere cameriera dipendente staff receptionist', 'gentile scortese maleducato attento cordiale'],
    pt: ['funcionários funcionário empregado equipa equipe rececionista recepcionista', 'simpático antipático atencioso mal-educado'],
    nl: ['personeel ober medewerker team receptioniste', 'vriendelijk onvriendelijk onbeleefd attent'],
  },
  food: {
    en: ['food dish dishes meal pizza steak dessert breakfast lunch dinner menu fries portion taste tiramisu crust toppings', 'delicious tasty bland soggy overcooked'],
    es: ['comida plato postre postres desayuno almuerzo cena carne paella menú ración raciones patatas', 'delicioso sabroso insípido'],
    fr: ['cuisine plat plats repas dessert petit-déjeuner déjeuner dîner viande frites portion croissant', 'délicieux savoureux fade'],
    de: ['essen gericht frühstück mittagessen abendessen nachtisch steak pommes portion menü', 'lecker köstlich fade'],
    it: ['cibo piatto piatti colazione pranzo cena dolce carne pizza patatine porzione menù impasto', 'squisito buonissimo insipido'],
    pt: ['comida prato pratos pequeno-almoço almoço jantar sobremesa carne batatas dose doses', 'delicioso saboroso'],
    nl: ['eten gerecht ontbijt lunch diner dessert biefstuk friet portie', 'lekker heerlijk smakeloos'],
  },
  drinks: {
    en: ['coffee drink drinks wine beer tea latte', ''],
    es: ['café bebida bebidas vino cerveza', ''],
    fr: ['café boisson boissons vin bière', ''],
    de: ['kaffee getränk getränke wein bier', ''],
    it: ['caffè bevanda bevande vino birra', ''],
    pt: ['café bebida bebidas vinho cerveja', ''],
    nl: ['koffie drankje drankjes wijn bier', ''],
  },
  price: {
    en: ['price prices cost value money charged fee', 'expensive cheap overpriced affordable pricey'],
    es: ['precio precios coste dinero relación_calidad-precio', 'caro barato abusivo'],
    fr: ['prix coût argent rapport_qualité-prix', 'cher abusif'],
    de: ['preis preise kosten geld preis-leistungs-verhältnis', 'teuer günstig überteuert'],
    it: ['prezzo prezzi costo soldi rapporto_qualità-prezzo', 'caro economico'],
    pt: ['preço preços custo dinheiro relação_qualidade-preço', 'caro barato'],
    nl: ['prijs prijzen kosten geld prijs-kwaliteitverhouding', 'duur goedkoop'],
  },
  quality: {
    en: ['quality material fabric made build', ''],
    es: ['calidad material', ''],
    fr: ['qualité matière', ''],
    de: ['qualität material verarbeitung', ''],
    it: ['qualità materiale', ''],
    pt: ['qualidade material', ''],
    nl: ['kwaliteit materiaal', ''],
  },
  delivery: {
    en: ['delivery shipping package parcel arrived order shipped courier', ''],
    es: ['entrega envío paquete pedido llegó', ''],
    fr: ['livraison colis expédition commande livré reçu', ''],
    de: ['lieferung versand paket bestellung geliefert', ''],
    it: ['consegna spedizione pacco ordine arrivato', ''],
    pt: ['entrega envio encomenda pedido chegou', ''],
    nl: ['levering verzending pakket bestelling geleverd', ''],
  },
  support: {
    en: ['support customer_service ticket refund warranty return helpdesk', ''],
    es: ['soporte atención_al_cliente devolución garantía reembolso', ''],
    fr: ['support service_client remboursement garantie retour', ''],
    de: ['support kundendienst kundenservice erstattung garantie rücksendung garantieabwicklung', ''],
    it: ['assistenza servizio_clienti rimborso garanzia reso', ''],
    pt: ['suporte apoio atendimento_ao_cliente reembolso garantia devolução', ''],
    nl: ['support klantenservice terugbetaling garantie retour retourneren', ''],
  },
  'ease of use': {
    en: ['setup interface dashboard onboarding use', 'easy intuitive user-friendly'],
    es: ['usar uso interfaz', 'fácil intuitivo'],
    fr: ['prise_en_main interface utilisation', 'facile simple intuitif'],
    de: ['bedienung bedienen oberfläche', 'einfach intuitiv'],
    it: ['usare uso interfaccia', 'facile intuitivo'],
    pt: ['usar uso interface', 'fácil intuitivo'],
    nl: ['gebruik interface', 'makkelijk eenvoudig intuïtief'],
  },
  reliability: {
    en: ['updates', 'crash crashes bug bugs reliable stable'],
    es: ['', 'fallo error se_cierra fiable estable'],
    fr: ['', 'plante bug fiable stable'],
    de: ['', 'absturz stürzt fehler zuverlässig stabil'],
    it: ['', 'si_blocca errore affidabile stabile'],
    pt: ['', 'trava erro fiável confiável estável'],
    nl: ['', 'crasht fout betrouwbaar stabiel'],
  },
  'wait time': {
    en: ['wait waited waiting queue line hour minutes', 'slow quick late'],
    es: ['espera esperamos esperar cola', 'lento tarde'],
    fr: ['attente attendre attendu', 'lent retard'],
    de: ['wartezeit gewartet warten', 'langsam'],
    it: ['attesa aspettato aspettare', 'lento ritardo'],
    pt: ['espera esperámos esperamos esperar fila', 'lento atrasada'],
    nl: ['wachten gewacht wachttijd', 'traag'],
  },
  cleanliness: {
    en: ['smell smelled hygiene', 'clean dirty sticky filthy'],
    es: ['olía higiene', 'limpio limpias sucio'],
    fr: ['odeur sentait hygiène', 'propre sale'],
    de: ['geruch roch hygiene', 'sauber schmutzig dreckig'],
    it: ['puzza puzzava igiene', 'pulito sporco'],
    pt: ['cheirava higiene', 'limpo sujo'],
    nl: ['rook geur hygiëne', 'schoon vies'],
  },
  rooms: {
    en: ['room rooms bed beds bathroom', ''],
    es: ['habitación habitaciones cama camas baño', ''],
    fr: ['chambre chambres lit lits salle_de_bain', ''],
    de: ['zimmer bett betten bad badezimmer', ''],
    it: ['camera camere letto letti bagno', ''],
    pt: ['quarto quartos cama camas casa_de_banho', ''],
    nl: ['kamer kamers bed bedden badkamer', ''],
  },
  atmosphere: {
    en: ['atmosphere ambience music decor view place', 'cozy'],
    es: ['ambiente música vistas sitio local', 'acogedor'],
    fr: ['ambiance musique vue cadre endroit', 'chaleureux'],
    de: ['atmosphäre ambiente musik aussicht', 'gemütlich'],
    it: ['atmosfera ambiente musica vista locale', 'accogliente'],
    pt: ['ambiente música vista lugar espaço', 'aconchegante'],
    nl: ['sfeer muziek uitzicht', 'gezellig'],
  },
  location: {
    en: ['location parking station located neighbourhood town', ''],
    es: ['ubicación aparcamiento estación barrio', ''],
    fr: ['emplacement parking gare quartier situé', ''],
    de: ['lage parkplatz parkplätze bahnhof bahnhofsnähe stadt', ''],
    it: ['posizione parcheggio stazione zona', ''],
    pt: ['localização estacionamento estação bairro', ''],
    nl: ['locatie parkeren station buurt', ''],
  },
};
